import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/reliability/**", "node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Two files at a time: most of the suite waits on child processes and sockets, so two
    // workers on 2 cores take 277 s where the default (one here) took 392 s (CI, 2026-11-23).
    maxWorkers: 2,
  },
});
