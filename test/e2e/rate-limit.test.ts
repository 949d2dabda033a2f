/**
 * Issue 12: `usersync apply` of 200 users against a fixed window of 20 requests per second, once
 * per convention of rate-limit headers (X-RateLimit-Reset as delta, epoch seconds, epoch ms; the
 * IETF draft). The built CLI runs as a child process against the emulator over a real socket.
 * Each run is about 400 requests (an IdP user and a mapping per user), so about 20 s of real pacing;
 * the modes run in parallel. No timing is asserted.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.js";
import { RESET_HEADER_MODES, type ResetHeaderMode } from "../../src/emulator/rate-headers.js";
import { runCli, withTempDir } from "./run-cli.js";

const TOKEN = "e2e-token-ratelimit-7c1e";
const USERS = 200;

function desired(): string {
  const lines = ["version: 1", "users:"];
  for (let i = 0; i < USERS; i += 1) {
    lines.push(`  - email: user${i}@rate.example`, `    displayName: User ${i}`);
  }
  return `${lines.join("\n")}\n`;
}

async function applyUnder(mode: ResetHeaderMode) {
  const emulator = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    faults: { rateLimit: { limit: 20, windowSeconds: 1, resetHeader: mode } },
  });
  try {
    return await withTempDir(async (dir) => {
      await writeFile(join(dir, "users.yaml"), desired());
      // The client's own limit is set far above the server's: the server's headers must pace it.
      await writeFile(
        join(dir, "usersync.yaml"),
        "execution:\n  concurrency: 32\n  requestsPerSecond: 1000\nidentity:\n  passwords: none\n",
      );
      const r = await runCli(
        [
          "apply",
          "--config",
          "usersync.yaml",
          "--desired",
          "users.yaml",
          "--base-url",
          emulator.url,
          "--yes",
        ],
        { cwd: dir, env: { USERSYNC_TOKEN: TOKEN } },
      );
      const log = emulator.requestLog();
      return {
        r,
        // Every mapping but the token's owner's (which the emulator maps at start).
        users: emulator.state().mappings.filter((m) => m.id !== "admin").length,
        requests: log.length,
        throttled: log.filter((e) => e.status === 429).length,
      };
    });
  } finally {
    await emulator.close();
  }
}

describe("rate-limit headers in every form: no retry storm", () => {
  it("200 users at 20/s: exit 0, all created, no Node warning, in each header mode", async () => {
    const results = await Promise.all(
      RESET_HEADER_MODES.map(async (mode) => ({ mode, ...(await applyUnder(mode)) })),
    );
    for (const { mode, r, users, requests, throttled } of results) {
      // The report the issue asks for: how many 429s each mode met.
      console.info(
        `${mode}: exit ${r.code}, ${users} users, ${requests} requests, ${throttled} answered 429`,
      );
      expect({ mode, code: r.code, stderr: r.stderr }).toEqual({ mode, code: 0, stderr: expect.any(String) });
      expect(r.stderr).not.toMatch(/Warning|TimeoutOverflow/);
      expect(users).toBe(USERS);
      // Paced by the headers from the first answer on, a quiet machine meets no 429
      // (docs/benchmarks.md, figure 7). Under the whole suite on two cores, a request held up
      // past a window's edge lands in the next, fully booked window: 12 of 416 were seen with
      // the four modes running at once. The storm this guards against answered 210 of 230.
      expect({ mode, few: throttled <= requests * 0.05 }).toEqual({ mode, few: true });
    }
  }, 120_000);
});
