/** The emulator's rate-limit headers in each convention (`faults.rateLimit.resetHeader`), over a real socket. */
import { describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.js";
import type { ResetHeaderMode } from "../../src/emulator/rate-headers.js";

async function headersOf(
  mode: ResetHeaderMode | undefined,
): Promise<{ h: Headers; before: number; after: number }> {
  const emulator = await startEmulator({
    port: 0,
    tokens: { t: "admin" },
    faults: { rateLimit: { limit: 5, windowSeconds: 2, ...(mode ? { resetHeader: mode } : {}) } },
  });
  try {
    const before = Date.now();
    const res = await fetch(`${emulator.url}/api/v1/profile`, { headers: { authorization: "Bearer t" } });
    await res.arrayBuffer();
    return { h: res.headers, before, after: Date.now() };
  } finally {
    await emulator.close();
  }
}

describe("emulator rate-limit headers", () => {
  it("delta (the default): X-RateLimit-Reset in seconds until the window ends", async () => {
    const { h } = await headersOf(undefined);
    expect(h.get("x-ratelimit-limit")).toBe("5");
    expect(h.get("x-ratelimit-remaining")).toBe("4");
    expect(h.get("x-ratelimit-reset")).toBe("2");
  });

  it("epoch-seconds: the epoch second the window (aligned to the clock) ends", async () => {
    const { h, before, after } = await headersOf("epoch-seconds");
    const reset = Number(h.get("x-ratelimit-reset"));
    expect(reset % 2).toBe(0);
    expect(reset * 1000).toBeGreaterThan(before);
    expect(reset * 1000).toBeLessThanOrEqual(after + 2000);
  });

  it("epoch-ms: the epoch millisecond the window ends", async () => {
    const { h, before, after } = await headersOf("epoch-ms");
    const reset = Number(h.get("x-ratelimit-reset"));
    expect(reset % 2000).toBe(0);
    expect(reset).toBeGreaterThan(before);
    expect(reset).toBeLessThanOrEqual(after + 2000);
  });

  it("ietf: RateLimit and RateLimit-Policy of the IETF draft", async () => {
    const { h } = await headersOf("ietf");
    expect(h.get("x-ratelimit-reset")).toBeNull();
    expect(h.get("ratelimit")).toMatch(/^"default";r=4;t=[12]$/);
    expect(h.get("ratelimit-policy")).toBe('"default";q=5;w=2');
  });
});
