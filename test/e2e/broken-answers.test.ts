/**
 * Issue 20, end to end: the built CLI against an emulator that breaks one kind of answer the way
 * gateways and single-page-app fallbacks do. For each broken answer, `plan` and `apply` in full
 * mode with `unlinkedCredentials: delete` and `deletions: remove` (the settings under which a
 * listing read as empty would delete the most) exit 1 with a message naming the request and what
 * was wrong, and the emulator sees zero writes. A body trickling in a byte at a time ends the run
 * within the whole-answer deadline and its retries. A clean run of the same set-up would change
 * things (so "nothing written" is the guard's doing).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSeedFile, startEmulator } from "../../src/emulator/index.js";
import type { BrokenAnswerRule, EmulatorHandle, EmulatorState } from "../../src/emulator/types.js";
import { logMessages, ROOT, runCli, withTempDir } from "./run-cli.js";

const TOKEN = "broken-answers-token-3f9e";
const DEMO = join(ROOT, "fixtures", "demo");
const RESPONSE_MS = 1500;
const MAX_BYTES = 1024 * 1024;

const PROFILE = /^\/api\/v1\/profile$/;
const IDP = /^\/api\/v1\/auth\/users$/;
const USERS = /^\/api\/v1\/entities\/users$/;
const GROUPS = /^\/api\/v1\/entities\/userGroups$/;

interface Case {
  name: string;
  rule: BrokenAnswerRule;
  message: RegExp;
}

const cases: Case[] = [
  {
    name: "the profile is a sign-in page",
    rule: { mode: "html", pathPattern: PROFILE },
    message:
      /^GET \/api\/v1\/profile answered 200, but the body is not JSON \(Content-Type text\/html; charset=utf-8\); the body began: "<!doctype html> .*", after every retry\./,
  },
  {
    name: "the mapping list is a sign-in page",
    rule: { mode: "html", pathPattern: USERS },
    message: /^GET \/api\/v1\/entities\/users\?page=0&\S+ answered 200, but the body is not JSON/,
  },
  {
    name: "the mapping list has data: null",
    rule: { mode: "dataNull", pathPattern: USERS },
    message:
      /answered 200, but the answer has the wrong shape: data: Invalid input: expected array, received null/,
  },
  {
    name: "the IdP list is {data: null}",
    rule: { mode: "dataNull", pathPattern: IDP },
    message:
      /^GET \/api\/v1\/auth\/users answered 200, but the answer has the wrong shape: \(the whole answer\)/,
  },
  {
    name: "the group list is cut in half",
    rule: { mode: "truncated", pathPattern: GROUPS },
    message: /^GET \/api\/v1\/entities\/userGroups\?\S+ answered 200, but the body is not valid JSON/,
  },
  {
    name: "the IdP list is larger than the cap",
    rule: { mode: "oversize", bytes: 2 * MAX_BYTES, pathPattern: IDP },
    message: new RegExp(`the body is larger than target.maxResponseBytes \\(${MAX_BYTES} bytes\\)`),
  },
  {
    name: "every mapping page repeats page 0",
    rule: { mode: "repeatPage", pathPattern: USERS },
    message:
      /^GET \/api\/v1\/entities\/users: the pages do not add up: page=1 answered as page 0; read 3 times, the listing never added up, so it cannot be proven whole\./,
  },
  {
    name: "the middle mapping pages are empty",
    rule: { mode: "emptyPage", pathPattern: USERS },
    message:
      /^GET \/api\/v1\/entities\/users: the pages do not add up: page=1 has 0 items, expected 4 \(a page before the last must be full; 32 items in 8 pages of 4\)/,
  },
];

let emulator: EmulatorHandle;
let seeded: EmulatorState;
beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    seed: await loadSeedFile(join(DEMO, "organization.yaml")),
  });
  seeded = emulator.state();
});
afterAll(() => emulator.close());

/** The config of the riskiest scheduled sync, with a small page size so listings have pages. */
async function writeConfig(dir: string): Promise<string> {
  const file = join(dir, "usersync.yaml");
  const config = {
    target: { baseUrl: emulator.url, timeouts: { responseMs: RESPONSE_MS }, maxResponseBytes: MAX_BYTES },
    source: { desired: join(DEMO, "users.yaml") },
    policy: { mode: "full", deletions: "remove", unlinkedCredentials: "delete", maxDeletes: "100%" },
    execution: { retries: 1, pageSize: 4, requestsPerSecond: 10_000 },
    logging: { level: "error" },
  };
  await writeFile(file, stringify(config));
  return file;
}

const env = { USERSYNC_TOKEN: TOKEN };
const writes = () => emulator.requestLog().filter((e) => e.method !== "GET");

async function planAndApply(dir: string, rule: BrokenAnswerRule) {
  const config = await writeConfig(dir);
  emulator.setFaults({ brokenAnswers: [rule] });
  emulator.resetLog();
  const plan = await runCli(["plan", "--config", config], { env });
  const credentials = join(dir, "credentials.csv");
  const apply = await runCli(["apply", "--config", config, "--yes", "--credentials-file", credentials], {
    env,
  });
  const broken = emulator.counters().faults[rule.mode] ?? 0;
  emulator.setFaults({});
  return { plan, apply, broken };
}

describe("a broken answer never becomes a plan", () => {
  it.each(cases)(
    "$name: plan and apply exit 1, say what was wrong, and nothing is written",
    async ({ rule, message }) => {
      await withTempDir(async (dir) => {
        const { plan, apply, broken } = await planAndApply(dir, rule);
        for (const run of [plan, apply]) {
          expect(run.code, run.stderr).toBe(1);
          // Off a terminal stderr is JSON lines, the fatal error the last (logMessages reads them).
          expect(logMessages(run.stderr)).toMatch(message);
          expect(logMessages(run.stderr)).toContain("usersync stopped before any change.");
          expect(run.stderr).not.toContain(TOKEN);
        }
        expect(broken).toBeGreaterThan(0);
        expect(writes()).toEqual([]);
        expect(emulator.state()).toEqual(seeded);
      });
    },
  );

  it("a body trickling in a byte every 200 ms ends within target.timeouts.responseMs and its retries", async () => {
    await withTempDir(async (dir) => {
      const started = Date.now();
      const { plan, apply } = await planAndApply(dir, { mode: "trickle", intervalMs: 200, pathPattern: IDP });
      const elapsed = Date.now() - started;
      for (const run of [plan, apply]) {
        expect(run.code, run.stderr).toBe(1);
        expect(logMessages(run.stderr)).toContain(
          `GET /api/v1/auth/users failed: the whole answer did not arrive within ${RESPONSE_MS} ms (target.timeouts.responseMs) (UND_ERR_BODY_TIMEOUT), after every retry.`,
        );
      }
      expect(writes()).toEqual([]);
      // A correctness bound, not a performance target: the IdP list (~3 KB) would take over ten
      // minutes to trickle in; two runs of two attempts each end in a few seconds.
      expect(elapsed).toBeLessThan(60_000);
    });
  }, 120_000);

  it("the fatal line is one JSON line with code BAD_ANSWER under --log-format json", async () => {
    await withTempDir(async (dir) => {
      const config = await writeConfig(dir);
      emulator.setFaults({ brokenAnswers: [{ mode: "html", pathPattern: PROFILE }] });
      try {
        const r = await runCli(["plan", "--config", config, "--log-format", "json"], { env });
        expect(r.code).toBe(1);
        const last = JSON.parse(r.stderr.trim().split("\n").at(-1)!) as Record<string, unknown>;
        expect(last).toMatchObject({ level: 60, code: "BAD_ANSWER", exitCode: 1 });
      } finally {
        emulator.setFaults({});
      }
    });
  });

  it("the same runs without broken answers would change the organization (the guard did the stopping)", async () => {
    await withTempDir(async (dir) => {
      const config = await writeConfig(dir);
      emulator.resetLog();
      const r = await runCli(["plan", "--config", config, "--detailed-exitcode"], { env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toMatch(/to remove/);
      expect(writes()).toEqual([]);
    });
  });
});
