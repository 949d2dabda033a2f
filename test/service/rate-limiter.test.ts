import { describe, expect, it } from "vitest";
import { RateLimiter } from "../../src/service/rate-limiter.js";

/** A fake clock: sleeping advances it, so each acquire's wait is observable. */
function fakeClock() {
  let t = 1_000_000;
  const waits: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      waits.push(ms);
      t += ms;
    },
    advance: (ms: number) => {
      t += ms;
    },
    waits,
  };
}

describe("RateLimiter", () => {
  it("is free when unlimited", async () => {
    const c = fakeClock();
    const l = new RateLimiter({ requestsPerSecond: 0, now: c.now, sleep: c.sleep });
    for (let i = 0; i < 100; i += 1) await l.acquire();
    expect(c.waits).toEqual([]);
  });

  it("spaces requests at 1/rps after the burst", async () => {
    const c = fakeClock();
    const start = c.now();
    const l = new RateLimiter({ requestsPerSecond: 10, burst: 1, now: c.now, sleep: c.sleep });
    for (let i = 0; i < 21; i += 1) await l.acquire();
    expect(c.now() - start).toBe(2000);
  });

  it("allows a burst, then the steady rate", async () => {
    const c = fakeClock();
    const start = c.now();
    const l = new RateLimiter({ requestsPerSecond: 100, burst: 10, now: c.now, sleep: c.sleep });
    for (let i = 0; i < 10; i += 1) await l.acquire();
    expect(c.now()).toBe(start);
    for (let i = 0; i < 100; i += 1) await l.acquire();
    expect(c.now() - start).toBe(1000);
  });

  it("a pause holds back every later request until its time", async () => {
    const c = fakeClock();
    const l = new RateLimiter({ requestsPerSecond: 0, now: c.now, sleep: c.sleep });
    l.pauseUntil(c.now() + 3000);
    l.pauseUntil(c.now() + 1000); // an earlier pause does not shorten it
    expect(await l.acquire()).toBe(3000);
    expect(await l.acquire()).toBe(0);
  });

  it("spreads the server's remaining budget over the rest of the window", async () => {
    const c = fakeClock();
    const start = c.now();
    const l = new RateLimiter({ requestsPerSecond: 0, now: c.now, sleep: c.sleep });
    l.observe({ limit: 10, remaining: 4, resetMs: 2000 });
    for (let i = 0; i < 4; i += 1) await l.acquire();
    // 4 requests over 2 s: at 0, 500, 1000, 1500 ms
    expect(c.now() - start).toBe(1500);
    // budget spent: the next waits for the window to end
    await l.acquire();
    expect(c.now() - start).toBe(2000);
  });

  it("waits for the window end when nothing is left, counting requests in flight", async () => {
    const c = fakeClock();
    const start = c.now();
    const l = new RateLimiter({ requestsPerSecond: 0, now: c.now, sleep: c.sleep });
    l.observe({ limit: 10, remaining: 3, resetMs: 1000 }, 3);
    await l.acquire();
    expect(c.now() - start).toBe(1000);
  });

  it("paces the window after the last one described with the same policy, from its start", async () => {
    const c = fakeClock();
    const l = new RateLimiter({ requestsPerSecond: 0, now: c.now, sleep: c.sleep });
    l.observe({ limit: 10, remaining: 0, resetMs: 1000 });
    c.advance(1500);
    expect(await l.acquire()).toBe(0);
    // 10 per 1000 ms window: the next slot is 100 ms on, not at once.
    expect(await l.acquire()).toBe(100);
  });
});
