/**
 * The server's `X-RateLimit-*` headers pace the client: it spends the window's budget over the
 * rest of the window instead of running into 429s. Real waiting (about 3 s), no timing asserted.
 */
import { describe, expect, it } from "vitest";
import { withEmulatorClient } from "../helpers/env.js";

describe("rate-limit headers", () => {
  it("a run over several fixed windows meets no 429", async () => {
    const env = await withEmulatorClient({
      emulator: { seed: { groups: [{ id: "g" }] }, faults: { rateLimit: { limit: 10, windowSeconds: 1 } } },
      client: { profile: "v1", concurrency: 8, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
    });
    try {
      const results = await Promise.all(Array.from({ length: 28 }, () => env.client.getGroup("g")));
      expect(results.every((g) => g?.id === "g")).toBe(true);
      const log = env.emulator.requestLog();
      expect(log.filter((e) => e.status === 429)).toEqual([]);
      expect(env.client.stats()).toMatchObject({ throttled: 0, retries: 0 });
    } finally {
      await env.close();
    }
  });
});
