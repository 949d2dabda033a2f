/**
 * Client-side pacing, shared by every request of one client:
 * - a token bucket of `requestsPerSecond` (0 = unlimited), kept as a "next free slot" time (GCRA)
 *   so one `acquire` computes its wait once instead of polling;
 * - a global pause: a 429 stops every request until the time the server named;
 * - a run-wide slowdown: sustained 429s halve the steady rate (`slowDown`);
 * - the server's `X-RateLimit-*` headers: the budget left in the current fixed window is spread
 *   evenly over the rest of the window, so a run spends its limit without meeting a 429.
 * Clock and sleep are injected so tests run on a fake clock.
 */

import { MAX_TIMER_MS } from "./rate-limit-headers.js";

/** Slowing down never goes below one request per second: slower would look like a hang. */
export const MIN_RPS = 1;
/** An unlimited client that meets sustained 429s starts halving from here. */
const UNLIMITED_START_RPS = 50;

export interface RateLimiterOptions {
  requestsPerSecond: number;
  /** Requests that may go at once after an idle spell (default: a tenth of a second's worth, at least 1). */
  burst?: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

export interface RateLimitHeaders {
  limit?: number;
  remaining: number;
  /** Milliseconds until the window resets (already capped; see rate-limit-headers.ts). */
  resetMs: number;
}

export class RateLimiter {
  private interval: number;
  private readonly burst: number;
  /** GCRA theoretical arrival time of the next request. */
  private tat = 0;
  private pausedUntil = 0;
  /** The server's window, as last reported. */
  private window: { end: number; budget: number; nextSlot: number } | undefined;

  constructor(private readonly o: RateLimiterOptions) {
    this.interval = o.requestsPerSecond > 0 ? 1000 / o.requestsPerSecond : 0;
    this.burst = Math.max(1, o.burst ?? Math.ceil(o.requestsPerSecond / 10));
  }

  /** Reserves the next slot and waits for it. Returns the ms waited (0 when none). */
  async acquire(): Promise<number> {
    const now = this.o.now();
    let at = Math.max(now, this.pausedUntil);
    if (this.interval > 0) {
      this.tat = Math.max(this.tat, at);
      at = Math.max(at, this.tat - (this.burst - 1) * this.interval);
      this.tat += this.interval;
    }
    at = Math.max(at, this.windowSlot(at));
    // A pause or window can never ask for a timer Node would clamp to 1 ms.
    const wait = Math.min(Math.ceil(at - now), MAX_TIMER_MS);
    if (wait > 0) await this.o.sleep(wait);
    return Math.max(0, wait);
  }

  /** Every request of the client waits until `until` (epoch ms); a later pause wins. */
  pauseUntil(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }

  /**
   * Sustained 429s (the server throttles even paced requests): halves the steady rate of every
   * request of the client, never below `MIN_RPS`. Returns the new rate, requests per second.
   */
  slowDown(): number {
    const current = this.interval > 0 ? 1000 / this.interval : UNLIMITED_START_RPS;
    const next = Math.max(MIN_RPS, current / 2);
    this.interval = 1000 / next;
    return next;
  }

  /**
   * Takes the server's view of the window. `inFlight` requests were sent before this answer but
   * not yet counted by it, so they already spent part of the remaining budget.
   */
  observe(h: RateLimitHeaders, inFlight = 0): void {
    const now = this.o.now();
    const end = now + Math.max(0, h.resetMs);
    const budget = Math.max(0, h.remaining - inFlight);
    const prev = this.window;
    const sameWindow = prev !== undefined && prev.end > now && Math.abs(prev.end - end) < 1000;
    // Answers can arrive out of order: within one window the smaller budget is the truer one.
    if (sameWindow && prev.budget <= budget) return;
    // Servers round the reset up to whole seconds, so the earliest estimate of one window is the truest.
    this.window = sameWindow
      ? { end: Math.min(prev.end, end), budget, nextSlot: prev.nextSlot }
      : { end, budget, nextSlot: now };
  }

  /** The earliest time a request may go given the server's window; spends one unit of budget. */
  private windowSlot(at: number): number {
    const w = this.window;
    if (!w) return at;
    if (at >= w.end) {
      // The window is over; the next answer describes the new one.
      this.window = undefined;
      return at;
    }
    if (w.budget <= 0) return w.end;
    const slot = Math.max(at, w.nextSlot);
    const spacing = (w.end - slot) / w.budget;
    w.budget -= 1;
    w.nextSlot = slot + spacing;
    return slot;
  }
}
