/**
 * Issue 46: `review --detailed-exitcode` is 0 for an organization in line with its desired state,
 * and 2 once a finding stands. The token's own user holds organization MANAGE (it must, to list
 * the organization at all, shared/spec/access-rules.md R9): that is not a finding, although the
 * desired state does not give it. Then a direct grant made by hand to a managed person (the
 * desired state gives their access through a group only) is a finding, and the exit is 2. Through
 * the built CLI against the emulator: the exit code is what a pipeline reads.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmulator, type EmulatorSeed } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import type { Snapshot } from "../../src/review/snapshot.js";
import { runCli } from "./run-cli.js";

const TOKEN = "review-exitcode-token";

const SEED: EmulatorSeed = {
  idpUsers: [
    { email: "admin@example.com", displayName: "Admin", authenticationId: "auth-admin" },
    { email: "ann@example.com", displayName: "Ann", authenticationId: "auth-ann" },
  ],
  mappings: [
    { id: "admin", authenticationId: "auth-admin", groups: [] },
    { id: "ann", authenticationId: "auth-ann", email: "ann@example.com", groups: ["team"] },
  ],
  groups: [{ id: "team", name: "Team" }],
  workspaces: [{ id: "sales", name: "Sales", permissions: [{ userGroup: "team", permissions: ["VIEW"] }] }],
  organizationPermissions: [{ user: "admin", permissions: ["MANAGE"] }],
};

const USERS = `version: 1
groups:
  - id: team
    name: Team
    workspaces:
      sales: [VIEW]
users:
  - email: ann@example.com
    id: ann
    displayName: Ann
    groups: [team]
`;

const CONFIG = (url: string): string => `target:
  baseUrl: ${url}
source:
  desired: users.yaml
identity:
  passwords: none
permissions:
  workspaces: all
`;

let emulator: EmulatorHandle;
let dir: string;
const env = { USERSYNC_TOKEN: TOKEN, USERSYNC_LOGGING_FORMAT: "json" };
const review = (out: string) =>
  runCli(["review", "--format", "json", "--out", out, "--detailed-exitcode"], { cwd: dir, env });
const load = async (file: string): Promise<Snapshot> =>
  JSON.parse(await readFile(join(dir, file), "utf8")) as Snapshot;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" }, seed: SEED });
  dir = await mkdtemp(join(tmpdir(), "usersync-review-exitcode-"));
  await writeFile(join(dir, "usersync.yaml"), CONFIG(emulator.url));
  await writeFile(join(dir, "users.yaml"), USERS);
});

afterAll(async () => {
  await emulator?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("exits 0 in line with the desired state (the token owner's MANAGE is no finding), 2 with a finding", async () => {
  const inLine = await review("in-line.json");
  const first = await load("in-line.json");
  expect(first.findings, inLine.stderr).toEqual([]);
  expect(inLine.code, inLine.stderr).toBe(0);
  // The token owner holds organization MANAGE, and it is shown, not flagged.
  expect(first.people.find((p) => p.key === "admin")).toMatchObject({ privileged: true });
  expect(first.rows.find((r) => r.rowId === "admin|organization")?.granted).toEqual(["MANAGE"]);
  // A direct grant made by hand, beside the group's: the service's own API, as a person would.
  const grant = await fetch(`${emulator.url}/api/v1/actions/workspaces/sales/managePermissions`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify([{ assigneeIdentifier: { id: "ann", type: "user" }, permissions: ["EXPORT"] }]),
  });
  expect(grant.status).toBeLessThan(300);
  const flagged = await review("flagged.json");
  expect(flagged.code, flagged.stderr).toBe(2);
  const kinds = (await load("flagged.json")).findings.map((f) => [f.kind, f.person, f.workspace]);
  expect(kinds).toContainEqual(["handMadeDirectGrant", "ann", "sales"]);
}, 240_000);
