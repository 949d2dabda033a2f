/**
 * Issue 45, item 5: a leaver leaves every organization. A person the shared source marks gone (a
 * row `state: absent` in the file, an account disabled in the directory: Entra's
 * `accountEnabled: false` is written `state: absent` without groups, docs/entra.md) is planned out
 * of every organization where they hold a mapping, in both modes, whatever the slices
 * (`targets[].select`, docs/multi-org.md). The expectation is the documented rule for one
 * organization (docs/desired-state.md: `state: absent` deletes per `policy.deletions`): each
 * organization's plan of its slice has a step that takes the leaver's login or access away.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { isError, readDesiredState, sliceDesired, type DesiredState } from "../../src/desired/index.js";
import type { SliceSelector } from "../../src/desired/slice.js";
import { plan } from "../../src/plan/index.js";
import type { Plan } from "../../src/plan/types.js";
import { aGroup, aMapping, anActualState, anIdpUser, aPolicy } from "../plan/builders.js";

const ORGS = ["org-a", "org-b", "org-c"] as const;
const STAYERS = [
  { email: "ann@x.com", groups: ["org-a"] },
  { email: "bob@x.com", groups: ["org-b", "team"] },
  { email: "cy@x.com", groups: ["org-c", "org-a"] },
];
const LEAVER = { email: "lee@x.com", id: "lee" };

/** How the source says the leaver is gone. */
type Shape = "file-no-groups" | "file-empty-groups" | "file-old-groups" | "directory-disabled";
const SHAPES: readonly Shape[] = [
  "file-no-groups",
  "file-empty-groups",
  "file-old-groups",
  "directory-disabled",
];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-leavers-"));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

/**
 * The shared source as the file reader reads it (a CSV with the `tenant` column the column select
 * reads; a YAML file for a leaver row without `groups`, whose people carry no column), or as a
 * directory source produces a disabled account.
 */
async function sharedSource(shape: Shape, leaverGroups: readonly string[]): Promise<DesiredState> {
  const leaver = shape === "file-old-groups" ? leaverGroups.join(";") : "";
  let file: string;
  if (shape === "file-no-groups") {
    file = join(dir, `${shape}.yaml`);
    const users = [...STAYERS, { email: LEAVER.email, id: LEAVER.id, state: "absent" }];
    await writeFile(file, stringify({ version: 1, groups: [...ORGS, "team"].map((id) => ({ id })), users }));
  } else {
    file = join(dir, `${shape}.csv`);
    const rows = STAYERS.map(
      (s) => `${s.email},${s.email.split("@")[0]},${s.groups.join(";")},present,${s.groups[0]!.slice(4)}`,
    );
    if (shape !== "directory-disabled") rows.push(`${LEAVER.email},${LEAVER.id},${leaver},absent,`);
    await writeFile(file, `email,id,groups,state,tenant\n${rows.join("\n")}\n`);
  }
  const read = await readDesiredState({ file, ...(file.endsWith(".csv") ? { columns: ["tenant"] } : {}) });
  expect(read.problems.filter(isError)).toEqual([]);
  if (shape !== "directory-disabled") return read.state;
  // A directory's disabled account: written absent, identity external, its groups not read.
  const at = { file: "entra user 0001", line: 1 };
  read.state.users.push({
    email: LEAVER.email,
    id: LEAVER.id,
    idDerived: false,
    identity: "external",
    authenticationId: "sub-lee",
    state: "absent",
    source: at,
  });
  return read.state;
}

type Select = (org: string, csv: boolean) => SliceSelector;
const selectorArb: fc.Arbitrary<Select> = fc.constantFrom<Select>(
  (org) => ({ groups: [org] }),
  (org) => ({ groups: [`${org.slice(0, 5)}*`] }),
  // A column is read from a CSV only: for the YAML shape, its groups select instead.
  (org, csv) => (csv ? { column: { name: "tenant", value: org.slice(4) } } : { groups: [org] }),
  () => ({ all: true }),
);

/** Steps of a plan that take the leaver's login or access away. */
function leaverSteps(p: Plan): string[] {
  return p.steps
    .filter((s) => s.status === "planned")
    .filter(
      (s) =>
        s.id === `deleteMapping:${LEAVER.id}` ||
        s.id === `deleteCredentials:${LEAVER.email}` ||
        (s.id === `updateMapping:${LEAVER.id}` && (s as { revokesAccess?: boolean }).revokesAccess === true),
    )
    .map((s) => s.id);
}

/** The leaver's mapping in an organization: built-in login (a file) or an SSO one (a directory). */
function organizationWith(shape: Shape, holdsMapping: boolean, groups: readonly string[]) {
  if (!holdsMapping) return anActualState({ groups: [...ORGS, "team"].map((id) => aGroup({ id })) });
  const idp = anIdpUser({ email: LEAVER.email });
  const sso = shape === "directory-disabled";
  return anActualState({
    groups: [...ORGS, "team"].map((id) => aGroup({ id })),
    idpUsers: sso ? [] : [idp],
    mappings: [
      aMapping({
        id: LEAVER.id,
        email: LEAVER.email,
        authenticationId: sso ? "sub-lee" : idp.authenticationId,
        groups: [...groups],
      }),
    ],
    ...(sso ? { signIn: "oidc" as const } : {}),
  });
}

describe("a leaver leaves every organization, whatever the slices and the mode", () => {
  it("is planned out wherever they hold a mapping (file and directory shapes x selects x modes)", async () => {
    const sources = new Map<Shape, DesiredState>();
    for (const shape of SHAPES) sources.set(shape, await sharedSource(shape, ["org-a", "org-b"]));
    fc.assert(
      fc.property(
        fc.constantFrom(...SHAPES),
        fc.constantFrom("incremental" as const, "full" as const),
        fc.tuple(selectorArb, selectorArb, selectorArb),
        fc.tuple(fc.boolean(), fc.boolean(), fc.boolean()),
        (shape, mode, selectors, holds) => {
          const shared = sources.get(shape)!;
          const selects = ORGS.map((org, i) => selectors[i]!(org, shape !== "file-no-groups"));
          ORGS.forEach((org, i) => {
            const others = selects.filter((_, j) => j !== i).flatMap((s) => s.groups ?? []);
            const slice = sliceDesired(shared, selects[i]!, others);
            const p = plan({
              desired: slice,
              actual: organizationWith(shape, holds[i]!, [org]),
              policy: aPolicy({ mode, maxDeletes: { count: 100 } }),
              profile: "v1",
            });
            const steps = leaverSteps(p);
            if (holds[i])
              expect(steps, `${org} ${shape} ${mode} ${JSON.stringify(selects[i])}`).not.toEqual([]);
            else expect(steps).toEqual([]);
            // The stayers of this slice are never touched by the leaver being in it.
            expect(
              slice.users.filter((u) => u.state === "present").every((u) => u.email !== LEAVER.email),
            ).toBe(true);
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it("a leaver no select picks brings no group into the slice", async () => {
    const shared = await sharedSource("file-old-groups", ["org-b", "team"]);
    const a = sliceDesired(shared, { groups: ["org-a"] }, ["org-b", "org-c"]);
    expect(a.users.map((u) => u.email)).toEqual(["ann@x.com", "cy@x.com", LEAVER.email]);
    expect(a.users.find((u) => u.email === LEAVER.email)!.groups).toBeUndefined();
    expect(a.groups.map((g) => g.id)).not.toContain("team");
    expect(a.groups.map((g) => g.id)).not.toContain("org-b");
  });
});
