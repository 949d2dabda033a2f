/**
 * The Okta pacer on a simulated quota (no sockets, no real waits): it spends at most the share
 * headroom leaves of each window, pauses for the reset measured against the answers' `Date`
 * (the local clock here is a day off), and refuses pauses past the run's budget.
 */
import { describe, expect, it } from "vitest";
import { OktaPacer } from "../../../../src/desired/sources/okta/pacer.js";

const DAY = 86_400_000;

/** A fixed-window quota on the server's clock, which the test advances by the pacer's sleeps. */
function simulated(o: { limit: number; windowMs: number; headroom: number; maxWaitMs?: number }) {
  let server = Date.parse("2026-11-25T12:00:10Z");
  let local = server - DAY; // the local clock is a day behind: only Date may be trusted
  let used = 0;
  let windowStart = Math.floor(server / o.windowMs) * o.windowMs;
  const pauses: number[] = [];
  const pacer = new OktaPacer({
    headroom: o.headroom,
    maxWaitMs: o.maxWaitMs ?? 60_000,
    now: () => local,
    sleep: async (ms) => {
      pauses.push(ms);
      server += ms;
      local += ms;
    },
    tooLong: (ms) => new Error(`too long: ${ms}`),
  });
  const request = async (): Promise<number> => {
    await pacer.beforeRequest();
    const start = Math.floor(server / o.windowMs) * o.windowMs;
    if (start !== windowStart) [windowStart, used] = [start, 0];
    const ok = used < o.limit;
    if (ok) used++;
    pacer.observe({
      status: ok ? 200 : 429,
      headers: {
        date: new Date(Math.floor(server / 1000) * 1000).toUTCString(),
        "x-rate-limit-limit": String(o.limit),
        "x-rate-limit-remaining": String(o.limit - used),
        "x-rate-limit-reset": String((windowStart + o.windowMs) / 1000),
      },
    });
    return ok ? 200 : 429;
  };
  return { pacer, request, pauses, usedNow: () => used };
}

describe("OktaPacer", () => {
  it("spends half of each window, then pauses until the reset the Date header implies", async () => {
    const s = simulated({ limit: 20, windowMs: 60_000, headroom: 0.5 });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push(await s.request());
    expect(s.pauses).toEqual([]);
    expect(s.usedNow()).toBe(10);
    statuses.push(await s.request()); // the 11th waits for the next window
    expect(s.pauses).toHaveLength(1);
    // 12:00:10 + 10 requests in no time: the window ends at 12:01:00, 50 s away (plus < 100 ms jitter).
    expect(s.pauses[0]).toBeGreaterThanOrEqual(50_000);
    expect(s.pauses[0]).toBeLessThan(50_100);
    expect(statuses.every((x) => x === 200)).toBe(true);
    expect(s.pacer.stats).toMatchObject({ pauses: 1, refused: 0 });
  });

  it("with 0% headroom spends the whole window and still meets no 429", async () => {
    const s = simulated({ limit: 5, windowMs: 1000, headroom: 0 });
    const statuses = [];
    for (let i = 0; i < 12; i++) statuses.push(await s.request());
    expect(statuses.filter((x) => x === 429)).toEqual([]);
    expect(s.pauses).toHaveLength(2);
  });

  it("stops when the pauses would pass the run's budget", async () => {
    const s = simulated({ limit: 4, windowMs: 60_000, headroom: 0.5, maxWaitMs: 30_000 });
    await s.request();
    await s.request();
    await expect(s.request()).rejects.toThrow(/too long/);
  });

  it("frees the place of a request that got no answer", async () => {
    const pacer = new OktaPacer({
      headroom: 0.5,
      maxWaitMs: 1000,
      now: Date.now,
      sleep: async () => {},
      tooLong: () => new Error("too long"),
    });
    await pacer.beforeRequest();
    pacer.settled();
    await pacer.beforeRequest(); // would wait for ever if the first place were still taken
    pacer.settled();
  });

  it("does not serialise the reads when answers carry no rate-limit headers", async () => {
    const pacer = new OktaPacer({
      headroom: 0.5,
      maxWaitMs: 1000,
      now: Date.now,
      sleep: async () => {},
      tooLong: () => new Error("too long"),
    });
    await pacer.beforeRequest();
    pacer.observe({ status: 200, headers: {} });
    await pacer.beforeRequest();
    await pacer.beforeRequest(); // a second one at once: nothing to wait for
  });
});
