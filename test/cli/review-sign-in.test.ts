/**
 * Issue 46: the review's login status follows how the service signs people in (shared/spec/
 * access-rules.md R16), not what the desired state calls them. Three organizations, one review
 * with --all-targets, in-process against three emulators on sockets:
 * - `oidc` signs in through an external OIDC provider (Entra's issuer): Ann, whom the source calls
 *   built-in and who has no built-in login, signs in there: external;
 * - `dex` signs in with its built-in provider and no provider claims Ann's domain: Ann, whom the
 *   source calls `identity: external`, cannot sign in: revoked, and a finding since she holds access;
 * - `claimed` is built-in too, but an identity provider claims Ann's domain: external.
 * The expectation is review-expected.ts's loginOf (R16 in plain loops), told only how each
 * organization was seeded to sign in.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { stringify } from "yaml";
import { main } from "../../src/cli/main.js";
import { startEmulator, type EmulatorSeed } from "../../src/emulator/index.js";
import type { EmulatorHandle, EmulatorSignIn } from "../../src/emulator/types.js";
import type { Snapshot } from "../../src/review/snapshot.js";
import { loginOf } from "../e2e/review-expected.js";
import { captureIo } from "../helpers/capture-io.js";

const ORGS = {
  oidc: { identity: "builtin", claimed: [] as string[], externalSignIn: true },
  dex: { identity: "external", claimed: [] as string[], externalSignIn: false },
  claimed: { identity: "external", claimed: ["example.org"], externalSignIn: false },
} as const;
type Name = keyof typeof ORGS;
const NAMES = Object.keys(ORGS) as Name[];
const emulators = {} as Record<Name, EmulatorHandle>;
let dir: string;

const seed = (name: Name): EmulatorSeed => ({
  idpUsers: [{ email: "admin@example.com", displayName: "Admin", authenticationId: `${name}-admin` }],
  mappings: [
    { id: "admin", authenticationId: `${name}-admin`, groups: [] },
    // No built-in login: Ann's authenticationId is her directory's object id.
    { id: "ann", authenticationId: "oid-ann", email: "ann@example.org", groups: ["team"] },
  ],
  groups: [{ id: "team", name: "Team" }],
  workspaces: [{ id: "sales", name: "Sales", permissions: [{ userGroup: "team", permissions: ["VIEW"] }] }],
  organizationPermissions: [{ user: "admin", permissions: ["MANAGE"] }],
  ...(ORGS[name].claimed.length > 0
    ? { identityProviders: [{ id: "partner", idpType: "CUSTOM_IDP", identifiers: [...ORGS[name].claimed] }] }
    : {}),
});

const signIn = (name: Name): EmulatorSignIn | undefined =>
  ORGS[name].externalSignIn
    ? { oauthIssuerLocation: "https://login.microsoftonline.com/t/v2.0", oauthSubjectIdClaim: "oid" }
    : undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-review-sign-in-"));
  for (const name of NAMES) {
    const how = signIn(name);
    emulators[name] = await startEmulator({
      port: 0,
      tokens: { [`${name}-token`]: "admin" },
      seed: seed(name),
      ...(how !== undefined ? { signIn: how } : {}),
    });
    await writeFile(
      join(dir, `${name}.yaml`),
      stringify({
        version: 1,
        groups: [{ id: "team", name: "Team", workspaces: { sales: ["VIEW"] } }],
        users: [
          {
            email: "ann@example.org",
            id: "ann",
            groups: ["team"],
            identity: ORGS[name].identity,
            ...(ORGS[name].identity === "external" ? { authenticationId: "oid-ann" } : {}),
          },
        ],
      }),
    );
  }
  await writeFile(
    join(dir, "usersync.yaml"),
    stringify({
      identity: { passwords: "none" },
      permissions: { workspaces: "all" },
      targets: NAMES.map((name) => ({
        name,
        baseUrl: emulators[name].url,
        desired: join(dir, `${name}.yaml`),
      })),
    }),
  );
});

afterAll(async () => {
  for (const name of NAMES) await emulators[name]?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("each organization's people have the login its sign-in gives them, whatever the source calls them", async () => {
  const env = Object.fromEntries(NAMES.map((n) => [`USERSYNC_TOKEN_${n.toUpperCase()}`, `${n}-token`]));
  const { io, err } = captureIo({ env, cwd: dir });
  const argv = ["review", "--config", join(dir, "usersync.yaml"), "--all-targets"];
  const code = await main([...argv, "--format", "json", "--out", join(dir, "review.json")], io);
  expect(code, err()).toBe(0);
  const got: Record<string, unknown> = {};
  const want: Record<string, unknown> = {};
  for (const name of NAMES) {
    const snapshot = JSON.parse(await readFile(join(dir, `review.${name}.json`), "utf8")) as Snapshot;
    const ann = snapshot.people.find((p) => p.key === "ann")!;
    const revokedFinding = snapshot.findings.some(
      (f) => f.kind === "revokedWithAccess" && f.person === "ann",
    );
    got[name] = { login: ann.login, status: ann.status, revokedWithAccess: revokedFinding };
    const login = loginOf(emulators[name].state(), "ann", () => ORGS[name].externalSignIn, {
      caller: "admin",
      claimedDomains: ORGS[name].claimed,
    });
    // A managed person in line with the source: their status is their login; revoked with access is a finding.
    want[name] = { login, status: login, revokedWithAccess: login === "revoked" };
  }
  expect(got).toEqual(want);
  // What the rules say here, spelled out.
  expect(Object.fromEntries(NAMES.map((n) => [n, (want[n] as { login: string }).login]))).toEqual({
    oidc: "external",
    dex: "revoked",
    claimed: "external",
  });
}, 120_000);
