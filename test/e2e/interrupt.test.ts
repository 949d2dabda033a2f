/**
 * Whole people first, through the built CLI: SIGINT at random moments of a 3,000-step apply
 * (1,500 new built-in users, a login and a user each) leaves at most `concurrency` people
 * half-created, counted from the emulator's store: logins no user points at, and users whose
 * login does not exist. Each interrupted run is followed by another that is interrupted too;
 * the last one finishes and converges. (Plan order alone, every login before every user, left
 * 922 logins and no user at 31%.)
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle, EmulatorState } from "../../src/emulator/types.js";
import { cliEnv, divergence, makeUsers, seedOf, writeConfig, writeDesired } from "../reliability/org.js";
import { runCli, startCli, withTempDir } from "./run-cli.js";

const USERS = 1500;
const CONCURRENCY = 8;
const users = makeUsers(USERS, { domain: "interrupt.example" });
let emulator: EmulatorHandle;

beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    tokens: { "reliability-token-8c41e07d": "admin" },
    seed: seedOf(),
  });
  emulator.setFaults({ latencyMs: 2 });
});
afterAll(async () => {
  await emulator?.close();
});

/** Logins without a user and users without their login: people an interrupt left half-done. */
function halfCreated(state: EmulatorState): string[] {
  const pointedAt = new Set(state.mappings.map((m) => m.authenticationId));
  const logins = new Set(state.idpUsers.map((u) => u.authenticationId));
  return [
    ...state.idpUsers.filter((u) => !pointedAt.has(u.authenticationId)).map((u) => `login ${u.email}`),
    ...state.mappings
      .filter((m) => m.authenticationId !== undefined && !logins.has(m.authenticationId))
      .map((m) => `user ${m.id}`),
  ];
}

const writes = (): number => {
  const c = emulator.counters().byMethod;
  return (c["POST"] ?? 0) + (c["PUT"] ?? 0);
};

/** Resolves once `count` more writes have reached the emulator, or the run ended. */
function afterWrites(count: number, ended: Promise<unknown>): Promise<void> {
  const target = writes() + count;
  return new Promise((resolve) => {
    let over = false;
    void ended.then(() => (over = true));
    const timer = setInterval(() => {
      if (over || writes() >= target) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
}

describe("an interrupted apply leaves whole people", () => {
  it(`SIGINT at random moments of a ${USERS * 2}-step apply leaves at most ${CONCURRENCY} people half-created`, async () => {
    await withTempDir(async (dir) => {
      const desired = join(dir, "users.yaml");
      await writeDesired(desired, users);
      const config = await writeConfig(dir, {
        execution: { concurrency: CONCURRENCY },
        identity: { passwords: "none" },
      });
      const args = ["apply", "--config", config, "--base-url", emulator.url, "--desired", desired, "--yes"];
      const seed = Date.now() % 100_000;
      let x = seed;
      const random = (): number => (x = (x * 48271) % 2_147_483_647) / 2_147_483_647;
      let remaining = USERS * 2;
      for (let run = 1; run <= 3; run++) {
        // A moment between a tenth and nine tenths of what is left to write.
        const at = Math.floor(remaining * (0.1 + 0.8 * random()));
        const { child, done } = startCli(args, { env: cliEnv() });
        await afterWrites(at, done);
        child.kill("SIGINT");
        const r = await done;
        const state = emulator.state();
        const half = halfCreated(state);
        const context = `seed ${seed}, run ${run}, SIGINT after ${at} writes: ${half.length} half-created (${half.slice(0, 5).join(", ")}); ${r.stderr.slice(-400)}`;
        // An interrupted apply exits 130 (the exit-code table): a re-run converges.
        expect(r.code, context).toBe(130);
        expect(half.length, context).toBeLessThanOrEqual(CONCURRENCY);
        const whole = state.mappings.length - 1 - half.filter((h) => h.startsWith("user")).length;
        expect(whole, context).toBeGreaterThan(0);
        remaining = (USERS - whole) * 2;
      }
      const last = await runCli(args, { env: cliEnv() });
      expect(last.code, last.stderr).toBe(0);
      expect(divergence(emulator.state(), users)).toEqual([]);
    });
  }, 180_000);
});
