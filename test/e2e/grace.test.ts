/**
 * One truth for onboarding and the scheduled sync, through the built CLI against the emulator:
 * an incremental onboarding batch and an hourly full sync share one state file
 * (policy.revokeAfter, state.file). The sync does not revoke the new hire its source does not
 * have yet, says they are pending and until when, and revokes them once the grace period has
 * passed (the guards still apply). A source that loses people for one run revokes nobody; a
 * corrupt state file revokes nobody early; an unwritable one stops apply before any request.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { makeUsers, seedOf, TOKEN, writeDesired, type TestUser } from "../reliability/org.js";
import { runCli } from "./run-cli.js";
import { readStateFile } from "../helpers/state-file.js";

const HOUR = 3_600_000;
let dir: string;
let emulator: EmulatorHandle;
const one = makeUsers(12, { prefix: "a", domain: "one.example" });
const two = makeUsers(12, { prefix: "b", domain: "two.example" });
const three = makeUsers(4, { prefix: "c", domain: "three.example" });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-grace-"));
  emulator = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    seed: seedOf([...one, ...two, ...three]),
  });
});
afterAll(async () => {
  await emulator?.close();
  await rm(dir, { recursive: true, force: true });
});

const env = { USERSYNC_TOKEN: TOKEN };

/** A config for one of the two jobs; each test works in its own email domain (policy.scope). */
async function config(
  name: string,
  o: { desired: string; mode: "full" | "incremental"; domain: string; state: string; extra?: object },
) {
  const file = join(dir, `${name}.yaml`);
  const doc = {
    target: { baseUrl: emulator.url },
    source: { desired: o.desired },
    policy: {
      mode: o.mode,
      revokeAfter: "72h",
      maxDeletes: 3,
      scope: { emailDomains: [o.domain] },
    },
    state: { file: o.state },
    output: { credentialsFile: join(dir, `${name}-credentials.csv`) },
    execution: { requestsPerSecond: 10_000 },
    logging: { level: "info", format: "json" },
    ...o.extra,
  };
  await writeFile(file, stringify(doc));
  return file;
}

/** The jobs of one test: its domain and state file, a config per desired file (full mode unless said). */
const jobsOf =
  (domain: string, state: string) =>
  (name: string, desired: string, mode: "full" | "incremental" = "full") =>
    config(name, { desired: join(dir, desired), mode, domain, state });

const hasLogin = (email: string): boolean => emulator.state().idpUsers.some((u) => u.email === email);
const mapped = (id: string): boolean => emulator.state().mappings.some((m) => m.id === id);

describe("onboarding and the hourly sync share one truth", () => {
  it("the sync keeps the new hire pending, says until when, and revokes them once 72h have passed", async () => {
    const state = join(dir, "one", "state.json");
    const job = jobsOf("one.example", state);
    await writeDesired(join(dir, "hr-one.yaml"), one);
    const hire: TestUser = {
      email: "new.hire@one.example",
      id: "new.hire",
      displayName: "New Hire",
      groups: ["g1"],
    };
    await writeDesired(join(dir, "batch-one.yaml"), [hire]);
    const onboarding = await job("onboarding-one", "batch-one.yaml", "incremental");
    const sync = await job("sync-one", "hr-one.yaml");

    // The careful way: a saved plan, reviewed, then applied exactly; it records the new hire too.
    const saved = join(dir, "onboarding-one.json");
    expect((await runCli(["plan", "--config", onboarding, "--out", saved], { env })).code).toBe(0);
    expect(existsSync(state), "a dry run writes no state").toBe(false);
    const onboard = await runCli(["apply", "--config", onboarding, "--plan", saved, "--yes"], { env });
    expect(onboard.code, onboard.stderr).toBe(0);
    expect(onboard.stdout).toContain("Done: 1 person (1 added)");
    expect(hasLogin(hire.email) && mapped(hire.id)).toBe(true);
    const recorded = await readStateFile(state);
    const created = Date.parse(recorded.people["mapping:new.hire"]!.since);
    expect(recorded.people).toEqual({ "mapping:new.hire": { since: expect.any(String), reason: "created" } });
    const until = new Date(created + 72 * HOUR).toISOString();

    // The hourly sync's source does not have the new hire yet.
    const plan = await runCli(["plan", "--config", sync, "--format", "json"], { env });
    expect(plan.code, plan.stderr).toBe(0);
    const json = JSON.parse(plan.stdout) as { steps: unknown[]; grace: { pending: unknown[] } };
    expect(json.steps).toEqual([]);
    expect(json.grace.pending).toEqual([
      { target: "mapping:new.hire", since: new Date(created).toISOString(), until, reason: "created" },
    ]);
    const metricsFile = join(dir, "sync-one.prom");
    const hourly = await runCli(["apply", "--config", sync, "--yes", "--metrics-file", metricsFile], { env });
    expect(hourly.code, hourly.stderr).toBe(0);
    expect(hourly.stdout).toContain("user new.hire: created by an incremental run at");
    expect(hourly.stdout).toContain(
      `revoked at ${until.slice(0, 16).replace("T", " ")} UTC unless it appears there`,
    );
    expect(hourly.stdout).toContain("Nothing to apply.");
    expect(await readFile(metricsFile, "utf8")).toMatch(
      /^usersync_people_pending\{organization="[^"]+"\} 1$/m,
    );
    expect(hasLogin(hire.email)).toBe(true);
    expect((await readStateFile(state)).people["mapping:new.hire"]?.since).toBe(
      new Date(created).toISOString(),
    );

    // Three days later (the state file says so), the source still lacks them: they go, within the guards.
    const past = await readStateFile(state);
    past.people["mapping:new.hire"]!.since = new Date(created - 73 * HOUR).toISOString();
    past.fullRunAt = new Date(Date.parse(past.fullRunAt!) - 73 * HOUR).toISOString();
    await writeFile(state, JSON.stringify({ formatVersion: 1, ...past }));
    const guarded = await runCli(["apply", "--config", sync, "--yes"], {
      env: { ...env, USERSYNC_POLICY_MAX_DELETES: "0" },
    });
    expect(guarded.code).toBe(3);
    expect(hasLogin(hire.email)).toBe(true);
    const due = await runCli(["apply", "--config", sync, "--yes"], { env });
    expect(due.code, due.stderr).toBe(0);
    expect(due.stdout).toContain("policy.revokeAfter 72h has passed");
    expect(hasLogin(hire.email)).toBe(false);
    expect(mapped(hire.id)).toBe(true); // deletions: revoke keeps the mapping
    // Nothing is left to do for them: the next sync forgets them.
    const after = await runCli(["apply", "--config", sync, "--yes"], { env });
    expect(after.code).toBe(0);
    expect((await readStateFile(state)).people).toEqual({});
    for (const u of one) expect(hasLogin(u.email), u.email).toBe(true);
  }, 60_000);

  it("a source that loses people for one run revokes nobody; once they are back they are forgotten", async () => {
    const state = join(dir, "two", "state.json");
    const job = jobsOf("two.example", state);
    await writeDesired(join(dir, "hr-two-short.yaml"), two.slice(5));
    await writeDesired(join(dir, "hr-two.yaml"), two);
    const short = await job("sync-two-short", "hr-two-short.yaml");
    const whole = await job("sync-two", "hr-two.yaml");
    const lost = await runCli(["apply", "--config", short, "--yes", "--format", "markdown"], { env });
    expect(lost.code, lost.stderr).toBe(0);
    expect(lost.stdout).toContain("### Pending (policy.revokeAfter 72h) (5)");
    expect(lost.stdout).toContain("- **Pending:** 5 people not in the source");
    expect(Object.keys((await readStateFile(state)).people)).toHaveLength(5);
    for (const u of two) expect(hasLogin(u.email), u.email).toBe(true);
    const back = await runCli(["apply", "--config", whole, "--yes"], { env });
    expect(back.code, back.stderr).toBe(0);
    expect((await readStateFile(state)).people).toEqual({});
  }, 60_000);

  it("a corrupt state file revokes nobody early: everyone missing starts again, the file is kept aside", async () => {
    const state = join(dir, "three", "state.json");
    const job = jobsOf("three.example", state);
    await writeDesired(join(dir, "hr-three.yaml"), three.slice(1));
    const sync = await job("sync-three", "hr-three.yaml");
    // First run: c0001 pending; then the file is damaged (half-written by hand, a bad restore).
    expect((await runCli(["apply", "--config", sync, "--yes"], { env })).code).toBe(0);
    await writeFile(state, '{"formatVersion": 1, "people": {"mapping:c0001": {"since": "2020-01-');
    const r = await runCli(["apply", "--config", sync, "--yes"], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("is not usable (not valid JSON");
    expect(r.stderr).toContain("nobody is revoked early");
    expect(hasLogin(three[0]!.email)).toBe(true);
    expect(await readFile(`${state}.corrupt`, "utf8")).toContain("2020-01-");
    expect(Object.keys((await readStateFile(state)).people)).toEqual(["mapping:c0001"]);
  }, 60_000);

  it("an unwritable state file stops apply with exit 4 before the first request", async () => {
    const blocker = join(dir, "a-file");
    await writeFile(blocker, "not a folder");
    await writeDesired(join(dir, "hr-three.yaml"), three);
    const sync = await config("sync-unwritable", {
      desired: join(dir, "hr-three.yaml"),
      mode: "full",
      domain: "three.example",
      state: join(blocker, "state.json"),
    });
    emulator.resetLog();
    const r = await runCli(["apply", "--config", sync, "--yes"], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(
      `state.file ${join(blocker, "state.json")}: its folder ${blocker} cannot be created`,
    );
    expect(emulator.requestLog()).toEqual([]);
  });
});
