/** policy.mode's default by source type, policy.revokeAfter's durations and its state.file. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { durationSeconds, loadConfig, toPolicy } from "../../src/config/index.js";
import { ConfigError, formatProblem } from "../../src/errors.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-config-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function load(text: string, env: Record<string, string> = {}) {
  const file = join(dir, "usersync.yaml");
  await writeFile(file, text);
  return loadConfig({ file, env, cwd: dir });
}

async function problems(text: string, env: Record<string, string> = {}): Promise<string[]> {
  const err = await load(text, env).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return (err as ConfigError).problems.map((p) => formatProblem(p).replace(dir, "<dir>"));
}

const LDAP = "source:\n  type: ldap\n  ldap:\n    url: ldap://127.0.0.1:389\n    baseDn: dc=example,dc=org\n";

describe("policy.mode", () => {
  test("a directory is a complete truth: full by default with source.type ldap", async () => {
    expect((await load(LDAP)).policy.mode).toBe("full");
    expect((await load(LDAP, { USERSYNC_SOURCE_TYPE: "file" })).policy.mode).toBe("incremental");
  });

  test("a file source stays incremental; an explicit mode always wins", async () => {
    expect((await load("source:\n  desired: users.csv\n")).policy.mode).toBe("incremental");
    expect((await load(`${LDAP}policy:\n  mode: incremental\n`)).policy.mode).toBe("incremental");
    expect((await load(LDAP, { USERSYNC_POLICY_MODE: "incremental" })).policy.mode).toBe("incremental");
    expect((await load("policy:\n  mode: full\n")).policy.mode).toBe("full");
  });
});

describe("policy.revokeAfter", () => {
  test("durations in weeks, days, hours, minutes and seconds, combined or not", () => {
    expect(durationSeconds("72h")).toBe(259_200);
    expect(durationSeconds("3d")).toBe(259_200);
    expect(durationSeconds("1d12h")).toBe(129_600);
    expect(durationSeconds("1w")).toBe(604_800);
    expect(durationSeconds("90m")).toBe(5400);
    expect(durationSeconds("30s")).toBe(30);
    expect(durationSeconds(0)).toBe(0);
    expect(durationSeconds(undefined)).toBe(0);
  });

  test("reaches the planner's policy with the text it was given; 0 means none", async () => {
    const state = "state:\n  file: ./state/usersync.json\n";
    const config = await load(`policy:\n  mode: full\n  revokeAfter: 3d\n${state}`);
    expect(toPolicy(config).revokeAfter).toEqual({ text: "3d", seconds: 259_200 });
    expect(config.state.file).toBe(join(dir, "state/usersync.json"));
    expect(toPolicy(await load("policy:\n  revokeAfter: 0\n")).revokeAfter).toBeUndefined();
    const fromEnv = await load(state, { USERSYNC_POLICY_REVOKE_AFTER: "36h" });
    expect(toPolicy(fromEnv).revokeAfter).toEqual({ text: "36h", seconds: 129_600 });
  });

  test("a number of runs, a bare number or an unknown unit is refused, saying what is allowed", async () => {
    for (const value of ['"3"', "3", "3 runs", "72 h", "2y", "-1h"]) {
      const [p] = await problems(`policy:\n  revokeAfter: ${value}\n`);
      expect(p, value).toContain('policy.revokeAfter: must be a duration such as "72h", "3d"');
      expect(p, value).toContain("a number of runs is not supported");
    }
  });

  test("needs state.file: the grace period is remembered there", async () => {
    expect(await problems("policy:\n  revokeAfter: 72h\n")).toEqual([
      "<dir>/usersync.yaml:2: state.file: is required when policy.revokeAfter is set: since when each person is missing is remembered there between runs (e.g. /var/lib/usersync/state.json on the Job's volume) [required]",
    ]);
  });
});
