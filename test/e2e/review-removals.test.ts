/**
 * Issue 46 item 4, dated removals, through the built CLI against the emulator: a leaver
 * (`state: absent`) who still holds access long after the state file says the source first
 * showed them gone is a `removalLate` finding (review.removalWithin); `apply` (deletions: revoke)
 * removes their access and records when, and which run, in state.file; `review --since` the
 * earlier review dates the `accessLost` rows with that time and run id.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv } from "ajv";
import { parse as parseCsv } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorSeed } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import type { Snapshot } from "../../src/review/snapshot.js";
import { ROOT, runCli } from "./run-cli.js";

const TOKEN = "review-removals-token";
const GONE_SINCE = "2026-01-05T08:00:00.000Z";

const SEED: EmulatorSeed = {
  workspaces: [
    { id: "books", name: "Books", permissions: [{ userGroup: "team", permissions: ["VIEW"] }] },
    { id: "sales", name: "Sales", permissions: [{ user: "leo", permissions: ["VIEW", "EXPORT"] }] },
  ],
  groups: [{ id: "team", name: "Team" }],
  idpUsers: [{ email: "jane@example.com", displayName: "Jane", authenticationId: "auth-jane" }],
  mappings: [
    { id: "jane", authenticationId: "auth-jane", email: "jane@example.com", groups: ["team"] },
    // Signs in through the organization's identity provider: the revoke takes the access.
    { id: "leo", authenticationId: "okta|leo", email: "leo@example.com", groups: ["team"] },
  ],
};

const USERS = `version: 1
groups:
  - id: team
    name: Team
    workspaces:
      books: [VIEW]
users:
  - email: jane@example.com
    id: jane
    groups: [team]
  - email: leo@example.com
    id: leo
    identity: external
    authenticationId: okta|leo
    state: absent
`;

const CONFIG = (url: string): string => `target:
  baseUrl: ${url}
source:
  desired: users.yaml
policy:
  mode: incremental
  deletions: revoke
identity:
  passwords: none
permissions:
  workspaces: all
state:
  file: state.json
review:
  removalWithin: 24h
`;

// What a run before this usersync remembered: leo missing from the source since GONE_SINCE.
const STATE = {
  formatVersion: 1,
  about: "written by the test",
  people: { "mapping:leo": { since: GONE_SINCE, reason: "missing" } },
};

let emulator: EmulatorHandle;
let dir: string;
const env = { USERSYNC_TOKEN: TOKEN, USERSYNC_LOGGING_FORMAT: "json" };
const run = (args: string[]) => runCli(args, { cwd: dir, env });
const load = async (file: string): Promise<Snapshot> =>
  JSON.parse(await readFile(join(dir, file), "utf8")) as Snapshot;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" }, seed: SEED });
  dir = await mkdtemp(join(tmpdir(), "usersync-removals-"));
  await writeFile(join(dir, "usersync.yaml"), CONFIG(emulator.url));
  await writeFile(join(dir, "users.yaml"), USERS);
  await writeFile(join(dir, "state.json"), `${JSON.stringify(STATE, null, 2)}\n`);
});

afterAll(async () => {
  await emulator?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("dated removals", () => {
  it("a leaver whose access outlived review.removalWithin is a removalLate finding", async () => {
    const r = await run(["review", "--format", "json", "--out", "before.json"]);
    expect(r.code, r.stderr).toBe(0);
    const before = await load("before.json");
    expect(before.people.find((p) => p.key === "leo")).toMatchObject({ leaver: true, goneSince: GONE_SINCE });
    const late = before.findings.filter((f) => f.kind === "removalLate");
    expect(late.map((f) => [f.person, f.severity])).toEqual([["leo", "high"]]);
    expect(late[0]!.detail).toContain(GONE_SINCE);
    expect(before.removals).toBeUndefined();
  }, 120_000);

  it("apply revokes the leaver and records when; review --since dates the lost rows with it", async () => {
    const started = new Date().toISOString();
    const a = await run([
      "apply",
      "--yes",
      "--journal",
      "journal.jsonl",
      "--report",
      "report.json",
      "--log-level",
      "debug",
    ]);
    const ended = new Date().toISOString();
    expect(a.code, a.stderr).toBe(0);
    // The service no longer gives leo anything (access-rules: no grant, no group, no access).
    const store = emulator.state();
    expect(store.mappings.find((m) => m.id === "leo")?.groups ?? []).toEqual([]);
    const recorded = JSON.parse(await readFile(join(dir, "state.json"), "utf8")) as {
      removals: Record<string, { at: string; runId: string }>;
      changes?: Array<{ runId?: string }>;
    };
    const record = recorded.removals["mapping:leo"]!;
    expect(record.at >= started && record.at <= ended).toBe(true);
    // The run id leads to the run: on each of its log lines about a step, each journal line, its
    // report, and the line that recorded the removals (docs/audits.md "Following a removal to its run").
    const lines = a.stderr
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { msg: string; runId?: string; stepId?: string });
    const stepLines = lines.filter((l) => l.stepId !== undefined);
    expect(stepLines.length).toBeGreaterThan(0);
    for (const l of stepLines) expect(l.runId, l.msg).toBe(record.runId);
    expect(lines.find((l) => l.msg === "removals recorded in the state file")?.runId).toBe(record.runId);
    const journal = (await readFile(join(dir, "journal.jsonl"), "utf8")).trim().split("\n");
    expect(journal.length).toBeGreaterThan(0);
    for (const l of journal) expect((JSON.parse(l) as { runId?: string }).runId).toBe(record.runId);
    const report = JSON.parse(await readFile(join(dir, "report.json"), "utf8")) as { runId?: string };
    expect(report.runId).toBe(record.runId);
    // The revert guard's recent changes (policy.revertWindow, 72h by default) name the run too.
    expect(recorded.changes?.length).toBeGreaterThan(0);
    for (const c of recorded.changes ?? []) expect(c.runId).toBe(record.runId);
    expect(Object.keys(recorded.removals)).toEqual(["mapping:leo"]);

    const r = await run(["review", "--format", "json", "--out", "after.json", "--since", "before.json"]);
    expect(r.code, r.stderr).toBe(0);
    const after = await load("after.json");
    const lost = after.changes!.changes.filter((c) => c.kind === "accessLost");
    expect(lost.map((c) => [c.person, c.workspace, c.removedAt, c.runId])).toEqual([
      ["leo", "books", record.at, record.runId],
      ["leo", "sales", record.at, record.runId],
    ]);
    expect(after.removals).toEqual([
      {
        rowId: "leo|books",
        person: "leo",
        workspace: "books",
        permissions: ["VIEW"],
        removedAt: record.at,
        runId: record.runId,
      },
      {
        rowId: "leo|sales",
        person: "leo",
        workspace: "sales",
        // What leo could do there: EXPORT covers both export kinds (shared/spec/access-rules.md).
        permissions: ["EXPORT", "EXPORT_PDF", "EXPORT_TABULAR", "VIEW"],
        removedAt: record.at,
        runId: record.runId,
      },
    ]);
    const schema = JSON.parse(await readFile(join(ROOT, "docs/review.schema.json"), "utf8")) as object;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    expect(validate(after), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    // No access left: no removalLate finding any more.
    expect(after.findings.filter((f) => f.kind === "removalLate")).toEqual([]);
    // The CSV's lost rows carry the removal time in last_change.
    const c = await run(["review", "--format", "csv", "--out", "after.csv", "--since", "before.json"]);
    expect(c.code, c.stderr).toBe(0);
    const rows = parseCsv(await readFile(join(dir, "after.csv"), "utf8"), { columns: true }) as Array<
      Record<string, string>
    >;
    const leoRows = rows.filter((x) => x["row_id"]?.startsWith("leo|"));
    expect(leoRows.map((x) => [x["row_id"], x["last_change"]])).toEqual([
      ["leo|books", record.at],
      ["leo|sales", record.at],
    ]);
    expect(leoRows[0]!["change"]).toContain(`run ${record.runId}`);
    // leo is still a leaver (the mapping stays): the state file says since when.
    expect(leoRows.map((x) => x["gone_since"])).toEqual([GONE_SINCE, GONE_SINCE]);
    const md = await run(["review", "--from", "after.json"]);
    expect(md.stdout).toContain(
      `| accessLost | leo@example.com | books | VIEW | removed by usersync ${record.at}, run ${record.runId} |`,
    );
  }, 240_000);
});
