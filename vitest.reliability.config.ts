import { defineConfig } from "vitest/config";

// The reliability suite (`npm run test:reliability`): long, fault-heavy runs of the built CLI and
// the engine against the emulator. Kept out of `npm test`; CI runs it with a 10-minute budget.
export default defineConfig({
  test: {
    include: ["test/reliability/**/*.test.ts"],
    pool: "forks",
    // Each file drives many child processes or thousands of requests: one file at a time per
    // core, and timeouts far above the measured durations so only a hang fails on time.
    maxWorkers: 2,
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
