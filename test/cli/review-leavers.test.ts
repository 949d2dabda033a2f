/**
 * Issue 45, item 6: a leaver is a finding in every layout. Lee is marked absent in the shared file
 * (no groups any more) and still holds VIEW through the group `team` in alpha, not yet synced.
 * `review --all-targets` of the estate (alpha and beta selected by group) gives alpha the same
 * findings as a single-organization config of alpha, and both flag Lee `revokedWithAccess`
 * (docs/audits.md: a person the desired state marks absent who still holds access). In-process
 * against two emulators on sockets.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { stringify } from "yaml";
import { main } from "../../src/cli/main.js";
import { startEmulator, type EmulatorSeed } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import type { Review } from "../../src/review/types.js";
import { withTempDir } from "../e2e/run-cli.js";
import { captureIo } from "../helpers/capture-io.js";

const orgs: Record<string, EmulatorHandle> = {};
const seed = (org: string): EmulatorSeed => ({
  idpUsers: [
    { email: `ann@x.com`, displayName: "Ann", authenticationId: `${org}-ann` },
    ...(org === "alpha" ? [{ email: "lee@x.com", displayName: "Lee", authenticationId: "alpha-lee" }] : []),
  ],
  mappings: [
    { id: "ann", authenticationId: `${org}-ann`, email: "ann@x.com", groups: ["team"] },
    ...(org === "alpha"
      ? [{ id: "lee", authenticationId: "alpha-lee", email: "lee@x.com", groups: ["team"] }]
      : []),
  ],
  groups: [{ id: "team" }],
  workspaces: [{ id: "sales", permissions: [{ userGroup: "team", permissions: ["VIEW"] }] }],
});

beforeAll(async () => {
  for (const n of ["alpha", "beta"])
    orgs[n] = await startEmulator({ port: 0, tokens: { [`${n}-t0ken`]: "admin" }, seed: seed(n) });
});
afterAll(async () => {
  for (const o of Object.values(orgs)) await o.close();
});

async function review(dir: string, config: string, argv: string[]): Promise<number> {
  const { io } = captureIo({
    // Each layout's own variables: the other's are unknown keys there.
    env: config.startsWith("single")
      ? { USERSYNC_TOKEN: "alpha-t0ken" }
      : { USERSYNC_TOKEN_ALPHA: "alpha-t0ken", USERSYNC_TOKEN_BETA: "beta-t0ken" },
    cwd: dir,
  });
  return main(["review", "--config", join(dir, config), "--format", "json", ...argv], io);
}

const leeAbsent = { email: "lee@x.com", id: "lee", state: "absent" };
const ann = (groups: string[]) => ({ email: "ann@x.com", id: "ann", groups });

it("the estate's review of alpha flags the leaver as the single-organization review does", () =>
  withTempDir(async (dir) => {
    const people = { version: 1, groups: [{ id: "org-alpha" }, { id: "org-beta" }, { id: "team" }] };
    await writeFile(
      join(dir, "people.yaml"),
      stringify({ ...people, users: [ann(["org-alpha", "org-beta", "team"]), leeAbsent] }),
    );
    await writeFile(
      join(dir, "estate.yaml"),
      stringify({
        source: { desired: "people.yaml" },
        policy: { mode: "incremental" },
        targets: ["alpha", "beta"].map((n) => ({
          name: n,
          baseUrl: orgs[n]!.url,
          select: { groups: [`org-${n}`] },
        })),
      }),
    );
    // One organization's config: alpha's people, as its slice gives them.
    await writeFile(
      join(dir, "alpha.yaml"),
      stringify({
        version: 1,
        groups: [{ id: "org-alpha" }, { id: "team" }],
        users: [ann(["org-alpha", "team"]), leeAbsent],
      }),
    );
    await writeFile(
      join(dir, "single.yaml"),
      stringify({
        source: { desired: "alpha.yaml" },
        policy: { mode: "incremental" },
        target: { baseUrl: orgs["alpha"]!.url },
      }),
    );
    expect(await review(dir, "estate.yaml", ["--all-targets", "--out", join(dir, "estate.json")])).toBe(0);
    expect(await review(dir, "single.yaml", ["--out", join(dir, "single.json")])).toBe(0);
    const read = async (f: string) => JSON.parse(await readFile(join(dir, f), "utf8")) as Review;
    const estate = await read("estate.alpha.json");
    const single = await read("single.json");
    const lee = single.findings.filter((f) => f.person === "lee" || f.email === "lee@x.com");
    expect(lee.map((f) => f.kind)).toContain("revokedWithAccess");
    expect(estate.findings).toEqual(single.findings);
    // beta never had Lee: no finding about them there.
    const beta = await read("estate.beta.json");
    expect(beta.findings.filter((f) => f.email === "lee@x.com")).toEqual([]);
  }));
