/**
 * Issue 20's input findings through the built CLI: `validate` and `plan` refuse each with exit 4
 * and a message naming file and line (never "Maximum call stack size exceeded"), `plan` sends
 * nothing to the service, and a CSV with mixed line ends is accepted.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { logMessages, runCli, withTempDir } from "./run-cli.js";

const TOKEN = "hostile-token-5c2";
const OK_USERS = "fixtures/valid/users.yaml";

let emulator: EmulatorHandle;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" } });
});
afterAll(() => emulator.close());
beforeEach(() => emulator.resetLog());

const plan = (args: string[], env: Record<string, string> = {}) =>
  runCli(["plan", "--base-url", emulator.url, ...args], { env: { USERSYNC_TOKEN: TOKEN, ...env } });

describe("hostile desired-state files through the built CLI", () => {
  it.each([
    ["deep-nesting.yaml", ":3: nested too deeply: lists and mappings more than 100 levels inside each other"],
    ["yaml-tag.yaml", ":5: the tag !!js/function is not allowed"],
    [
      "control-escape.yaml",
      ':5: users[0].displayName: "Jane<U+0000>Doe" holds the control character U+0000 (NUL)',
    ],
    ["invisible-login.yaml", ':4: users[0].email: "ann<U+200B>@example.com" holds U+200B (zero width space)'],
  ])("%s: validate and plan exit 4, nothing is sent", async (name, message) => {
    const file = join("fixtures", "invalid", name);
    const validate = await runCli(["validate", file]);
    expect(validate.code).toBe(4);
    expect(validate.stdout).toContain(`${file}${message}`);
    const planned = await plan(["--desired", file]);
    expect(planned.code).toBe(4);
    expect(logMessages(planned.stderr)).toContain(`${file}${message}`);
    expect(`${planned.stdout}${logMessages(planned.stderr)}`).not.toMatch(/call stack|RangeError/);
    expect(emulator.counters().requests).toBe(0);
  });

  it("a CSV that mixes CRLF and LF line ends is valid", async () => {
    const r = await runCli(["validate", "fixtures/valid/users-mixed-line-ends.csv"]);
    expect(r.stdout).toContain("OK: fixtures/valid/users-mixed-line-ends.csv: 3 user(s)");
    expect(r.code).toBe(0);
  });
});

describe("the deletion guard cannot be switched off by a typo", () => {
  it("policy.maxDeletes over 100%: in the config file and in the environment, exit 4 before any request", async () => {
    await withTempDir(async (dir) => {
      const config = join(dir, "usersync.yaml");
      await writeFile(config, 'policy:\n  mode: full\n  maxDeletes: "150%"\n');
      const fromFile = await plan(["--config", config, "--desired", OK_USERS]);
      expect(fromFile.code).toBe(4);
      expect(logMessages(fromFile.stderr)).toContain(
        `${config}:3: policy.maxDeletes: "150%" is more than 100% of the managed users: write at most "100%", or a count [config-schema]`,
      );
      const fromEnv = await plan(["--desired", OK_USERS], { USERSYNC_POLICY_MAX_DELETES: "150%" });
      expect(fromEnv.code).toBe(4);
      expect(logMessages(fromEnv.stderr)).toContain(
        'env USERSYNC_POLICY_MAX_DELETES: policy.maxDeletes: "150%" is more than 100%',
      );
      const negative = await plan(["--desired", OK_USERS], { USERSYNC_POLICY_MAX_DELETES: "-5" });
      expect(negative.code).toBe(4);
      expect(emulator.counters().requests).toBe(0);
    });
  });

  it.each([["--allow-deletes=-1"], ["--allow-deletes", "-1"], ["--allow-deletes", "150%"]])(
    "the flag: %s is exit 4 before any request",
    async (...flag) => {
      const r = await plan(["--desired", OK_USERS, ...flag]);
      expect(r.code).toBe(4);
      expect(logMessages(r.stderr)).toContain("--allow-deletes");
      expect(emulator.counters().requests).toBe(0);
    },
  );

  it("a config file with a tag or nested too deeply is exit 4, not an unexpected error", async () => {
    await withTempDir(async (dir) => {
      const tagged = join(dir, "tagged.yaml");
      await writeFile(tagged, "policy:\n  maxDeletes: !!js/function 500\n");
      const t = await plan(["--config", tagged, "--desired", OK_USERS]);
      expect(t.code).toBe(4);
      expect(logMessages(t.stderr)).toContain(`${tagged}:2: the tag !!js/function is not allowed`);
      const deep = join(dir, "deep.yaml");
      await writeFile(deep, `policy: ${"{a: ".repeat(20_000)}\n`);
      const d = await plan(["--config", deep, "--desired", OK_USERS]);
      expect(d.code).toBe(4);
      expect(logMessages(d.stderr)).toContain(`${deep}:1: nested too deeply`);
      expect(emulator.counters().requests).toBe(0);
    });
  });
});
