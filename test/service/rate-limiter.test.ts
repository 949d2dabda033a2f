import { describe, expect, it } from "vitest";
import { MIN_RPS, RateLimiter } from "../../src/service/rate-limiter.js";

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

describe("RateLimiter slowing down and speeding back up", () => {
  const limiter = (requestsPerSecond: number, c = fakeClock()) =>
    new RateLimiter({ requestsPerSecond, burst: 1, now: c.now, sleep: c.sleep });

  it("halves, then climbs by an eighth of the start rate back to the configured rate", () => {
    const l = limiter(40);
    expect([l.slowDown(), l.slowDown(), l.slowDown()]).toEqual([20, 10, 5]);
    expect(l.slowed).toBe(true);
    const climb = Array.from({ length: 7 }, () => l.speedUp());
    expect(climb).toEqual([10, 15, 20, 25, 30, 35, 40]);
    expect(l.slowed).toBe(false);
    // Back where it started: a calm stretch does not take it past the configured rate.
    expect(l.speedUp()).toBe(40);
  });

  it("paces at the rate it was slowed or sped to", async () => {
    const c = fakeClock();
    const l = limiter(40, c);
    l.slowDown();
    l.slowDown();
    l.speedUp(); // 10 -> 15
    await l.acquire();
    const start = c.now();
    for (let i = 0; i < 15; i += 1) await l.acquire();
    expect(c.now() - start).toBe(1000);
  });

  it("halves again from where a new wave finds it, and keeps its steps", () => {
    const l = limiter(40);
    l.slowDown();
    expect(l.speedUp()).toBe(25);
    expect(l.slowDown()).toBe(12.5);
    expect(l.speedUp()).toBe(17.5);
  });

  it("never climbs above the configured rate", () => {
    const l = limiter(3);
    expect([l.slowDown(), l.slowDown()]).toEqual([1.5, MIN_RPS]);
    const climb = Array.from({ length: 6 }, () => l.speedUp());
    expect(climb).toEqual([1.375, 1.75, 2.125, 2.5, 2.875, 3]);
    expect(l.slowed).toBe(false);
  });

  it("halves from the server's lower limit and climbs back to the client's own rate past it", () => {
    const l = limiter(40);
    l.observe({ limit: 10, remaining: 9, resetMs: 1000 });
    expect(l.slowDown()).toBe(5);
    const climb = Array.from({ length: 4 }, () => l.speedUp());
    expect(climb).toEqual([6.25, 7.5, 8.75, 40]);
    expect(l.slowed).toBe(false);
  });

  it("an unlimited client halves from 50 and is unlimited again once it climbs back there", async () => {
    const c = fakeClock();
    const l = limiter(0, c);
    expect([l.slowDown(), l.slowDown()]).toEqual([25, 12.5]);
    const climb = Array.from({ length: 6 }, () => l.speedUp());
    expect(climb).toEqual([18.75, 25, 31.25, 37.5, 43.75, 0]);
    expect(l.rate).toBe(0);
    expect(l.slowed).toBe(false);
    await l.acquire();
    c.waits.length = 0;
    for (let i = 0; i < 100; i += 1) await l.acquire();
    expect(c.waits).toEqual([]);
  });
});
