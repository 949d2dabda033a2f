/**
 * When sustained 429s slow a run down, when calm stretches speed it back up, and what the run
 * says at the end: a Slowdown over a real RateLimiter, fed answers on a fake clock.
 */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logging.js";
import { RateLimiter } from "../../src/service/rate-limiter.js";
import { CALM_ANSWERS, CALM_MS, Slowdown, SUSTAINED_ANSWERS } from "../../src/service/slowdown.js";

function setup(requestsPerSecond: number) {
  let t = 1_000_000;
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const now = () => t;
  const limiter = new RateLimiter({ requestsPerSecond, now, sleep: () => Promise.resolve() });
  const slowdown = new Slowdown({
    limiter,
    now,
    logger: createLogger({ level: "warn", destination: stream }),
  });
  let throttled = 0;
  return {
    limiter,
    /** `n` answers of `status`, one after another, each `gapMs` after the one before. */
    answer(status: number, n: number, gapMs: number): void {
      for (let i = 0; i < n; i += 1) {
        const sentAt = t;
        t += gapMs;
        if (status === 429) throttled += 1;
        slowdown.answered(status, sentAt);
      }
    },
    /** SUSTAINED_ANSWERS 429s in a row: sustained, so the rate halves once. */
    wave(): void {
      this.answer(429, SUSTAINED_ANSWERS, 50);
    },
    report(): Array<Record<string, unknown>> {
      slowdown.report(throttled);
      return lines;
    },
  };
}

describe("Slowdown", () => {
  it("one stray 429 never slows the run", () => {
    const s = setup(40);
    s.answer(200, 50, 50);
    s.answer(429, 1, 50);
    s.answer(200, 50, 50);
    expect(s.limiter.rate).toBe(40);
    expect(s.report()).toEqual([]);
  });

  it("a sustained wave halves the rate once", () => {
    const s = setup(40);
    s.answer(429, SUSTAINED_ANSWERS - 1, 50);
    expect(s.limiter.rate).toBe(40);
    s.answer(429, 1, 50);
    expect(s.limiter.rate).toBe(20);
  });

  it("a service that answers 5% of requests with 429 at random does not slow the run", () => {
    // A fixed pseudo-random sequence (a linear congruential generator), 200 runs of 1,000 answers.
    let x = 12345;
    const next = (): number => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return x / 2 ** 32;
    };
    let slowed = 0;
    let throttled = 0;
    for (let run = 0; run < 200; run += 1) {
      const s = setup(40);
      for (let i = 0; i < 1000; i += 1) {
        const status = next() < 0.05 ? 429 : 200;
        if (status === 429) throttled += 1;
        s.answer(status, 1, 25);
      }
      if (s.limiter.rate < 40) slowed += 1;
    }
    expect(throttled / 200_000).toBeGreaterThan(0.04);
    // The rule that took 10% of 20 answers slowed 35 of these 200 runs.
    expect(slowed).toBe(0);
  });

  it("a fast run steps back up after 10 s without a 429, however many answers that took", () => {
    const s = setup(40);
    s.wave();
    // 50 ms apart: 100 answers take 5 s, the stretch is only calm enough after 200 (10 s).
    s.answer(200, CALM_MS / 50 - 1, 50);
    expect(s.limiter.rate).toBe(20);
    s.answer(200, 1, 50);
    expect(s.limiter.rate).toBe(25);
  });

  it("a slow run steps back up after 100 answers without a 429, however long that took", () => {
    const s = setup(40);
    s.wave();
    s.answer(200, CALM_ANSWERS - 1, 500);
    expect(s.limiter.rate).toBe(20);
    s.answer(200, 1, 500);
    expect(s.limiter.rate).toBe(25);
    // Each step starts a new stretch.
    s.answer(200, CALM_ANSWERS - 1, 500);
    expect(s.limiter.rate).toBe(25);
    s.answer(200, 1, 500);
    expect(s.limiter.rate).toBe(30);
  });

  it("a 429 within a calm stretch starts it again, without slowing the run", () => {
    const s = setup(40);
    s.wave();
    s.answer(200, CALM_ANSWERS - 10, 500);
    s.answer(429, 1, 500);
    s.answer(200, CALM_ANSWERS - 1, 500);
    expect(s.limiter.rate).toBe(20);
    s.answer(200, 1, 500);
    expect(s.limiter.rate).toBe(25);
  });

  it("says at the end that a run which recovered was back at its rate, without advice", () => {
    const s = setup(40);
    s.wave();
    s.wave();
    s.answer(200, 6 * CALM_ANSWERS, 500);
    expect(s.limiter.rate).toBe(40);
    const said = s.report();
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({
      level: 40,
      throttled: 100,
      lowest: 10,
      requestsPerSecond: 40,
      msg: "the service kept answering 429 (100 in all): the run slowed down to 10 requests per second at the lowest and was back at 40 by the end",
    });
  });

  it("says where a run that ended slowed got to, and advises starting there", () => {
    const s = setup(40);
    s.wave();
    s.wave();
    s.answer(200, 2 * CALM_ANSWERS, 500);
    expect(s.report()[0]).toMatchObject({
      lowest: 10,
      requestsPerSecond: 20,
      msg: "the service kept answering 429 (100 in all): the run slowed down to 10 requests per second at the lowest and was at 20 by the end; lower execution.requestsPerSecond to 20 to start there",
    });
  });

  it("says so when a run ended at the lowest rate", () => {
    const s = setup(40);
    s.wave();
    s.answer(200, 50, 500);
    expect(s.report()[0]).toMatchObject({
      lowest: 20,
      requestsPerSecond: 20,
      msg: "the service kept answering 429 (50 in all): the run slowed down to 20 requests per second and ended at that rate; lower execution.requestsPerSecond to 20 to start there",
    });
  });

  it("an unlimited run that recovered is unlimited again (requestsPerSecond 0)", () => {
    const s = setup(0);
    s.wave();
    s.wave();
    s.wave();
    // 6.25 -> 12.5 -> ... -> 50, an eighth of 50 at a time: seven calm stretches back to unlimited.
    s.answer(200, 6 * CALM_ANSWERS, 500);
    expect(s.limiter.rate).toBe(43.75);
    s.answer(200, CALM_ANSWERS, 500);
    expect(s.limiter.rate).toBe(0);
    expect(s.report()[0]).toMatchObject({
      lowest: 6.25,
      requestsPerSecond: 0,
      msg: "the service kept answering 429 (150 in all): the run slowed down to 6.25 requests per second at the lowest and was back to unlimited by the end",
    });
  });
});
