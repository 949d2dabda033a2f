/**
 * Client-side pacing, shared by every request of one client:
 * - a token bucket of `requestsPerSecond` (0 = unlimited), kept as a "next free slot" time (GCRA)
 *   so one `acquire` computes its wait once instead of polling;
 * - a global pause: a 429 stops every request until the time the server named;
 * - a run-wide slowdown: sustained 429s halve the steady rate (`slowDown`) and calm stretches
 *   raise it again in steps back to the configured rate (`speedUp`; slowdown.ts decides when);
 * - the server's `X-RateLimit-*` headers: the budget left in the current fixed window is spread
 *   evenly over the rest of the window, so a run spends its limit without meeting a 429.
 * Clock and sleep are injected so tests run on a fake clock.
 */

import { MAX_TIMER_MS } from "./rate-limit-headers.js";

/** Slowing down never goes below one request per second: slower would look like a hang. */
export const MIN_RPS = 1;
/** An unlimited client that meets sustained 429s starts halving from here. */
const UNLIMITED_START_RPS = 50;
/**
 * Each calm stretch adds 1/RECOVERY_STEPS of the rate the run had when it first halved: additive
 * increase after multiplicative decrease (AIMD, as TCP does). Two runs sharing one quota then
 * converge on fair shares of it, where doubling back would overshoot into the next wave of 429s
 * at once; and from a quarter of the start rate, six calm stretches bring the run back.
 */
const RECOVERY_STEPS = 8;

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
  /** The steady rate, requests per second (0 = unlimited). */
  private rps: number;
  /** The rate the run had when sustained 429s first halved it; undefined while not slowed down. */
  private ceiling: number | undefined;
  /** Slots booked whose request has not gone yet. */
  private pending = 0;
  private readonly burst: number;
  /** GCRA theoretical arrival time of the next request. */
  private tat = 0;
  private pausedUntil = 0;
  /** The server's window, as last reported. */
  private window:
    | {
        start: number;
        end: number;
        budget: number;
        nextSlot: number;
        assumed: boolean;
        /** The least `remaining` the server reported for this window. */
        minRemaining: number;
      }
    | undefined;
  /** The server's limit per window and the window's length, as learned from its headers. */
  private policy: { limit: number; windowMs: number } | undefined;

  constructor(private readonly o: RateLimiterOptions) {
    this.rps = Math.max(0, o.requestsPerSecond);
    this.burst = Math.max(1, o.burst ?? Math.ceil(o.requestsPerSecond / 10));
  }

  /** Reserves the next slot and waits for it. Returns the ms waited (0 when none). */
  async acquire(): Promise<number> {
    const started = this.o.now();
    let at = Math.max(started, this.pausedUntil);
    if (this.interval > 0) {
      this.tat = Math.max(this.tat, at);
      at = Math.max(at, this.tat - (this.burst - 1) * this.interval);
      this.tat += this.interval;
    }
    // A slot is only ever booked in the window the server last described (or the one that
    // follows it): waiting for the next window and asking again keeps bookings and answers in step.
    for (;;) {
      const slot = this.windowSlot(Math.max(at, this.pausedUntil));
      if (slot.booked) {
        // Booked but not yet sent: an answer telling a new window began must not give it away twice.
        this.pending += 1;
        await this.sleepUntil(slot.at);
        this.pending -= 1;
        break;
      }
      await this.sleepUntil(slot.at);
      at = slot.at;
    }
    return this.o.now() - started;
  }

  private async sleepUntil(at: number): Promise<void> {
    // A pause or window can never ask for a timer Node would clamp to 1 ms.
    const wait = Math.min(Math.ceil(at - this.o.now()), MAX_TIMER_MS);
    if (wait > 0) await this.o.sleep(wait);
  }

  /** Every request of the client waits until `until` (epoch ms); a later pause wins. */
  pauseUntil(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }

  /** The client's own steady rate now, requests per second; 0 when unlimited. */
  get rate(): number {
    return this.rps;
  }

  /** Whether sustained 429s slowed the client below where it was when they began. */
  get slowed(): boolean {
    return this.ceiling !== undefined;
  }

  /**
   * Sustained 429s (the server throttles even paced requests): halves the steady rate of every
   * request of the client, never below `MIN_RPS`. Returns the new rate, requests per second.
   */
  slowDown(): number {
    // From the rate the run actually had: the client's own limit or the server's, the lower.
    const own = this.rps > 0 ? this.rps : Infinity;
    const server = this.policy ? (this.policy.limit * 1000) / this.policy.windowMs : Infinity;
    const current = Math.min(own, server) === Infinity ? UNLIMITED_START_RPS : Math.min(own, server);
    this.ceiling ??= current;
    this.rps = Math.max(MIN_RPS, current / 2);
    return this.rps;
  }

  /**
   * A calm stretch after a slowdown: the steady rate climbs by an eighth of the rate the run had
   * when it first halved. Once it reaches that rate the client is back at its configured rate
   * (unlimited again, for an unlimited client) and no longer slowed. Returns the new rate,
   * requests per second (0 = unlimited).
   */
  speedUp(): number {
    if (this.ceiling === undefined) return this.rps;
    const next = this.rps + this.ceiling / RECOVERY_STEPS;
    if (next >= this.ceiling) {
      this.ceiling = undefined;
      this.rps = Math.max(0, this.o.requestsPerSecond);
    } else {
      this.rps = next;
    }
    return this.rps;
  }

  /** The spacing of requests at the steady rate, ms; 0 when unlimited. */
  private get interval(): number {
    return this.rps > 0 ? 1000 / this.rps : 0;
  }

  /**
   * Takes the server's view of the window. `inFlight` requests were sent before this answer but
   * not yet counted by it, so they already spent part of the remaining budget.
   */
  observe(h: RateLimitHeaders, inFlight = 0): void {
    const now = this.o.now();
    const end = now + Math.max(0, h.resetMs);
    this.learnPolicy(h);
    const prev = this.window;
    const budget = Math.max(0, h.remaining - inFlight - this.pending);
    // Within one window the server's count only goes down (answers reorder at most by the
    // requests in flight): more left than before means the server began a new window, perhaps
    // before this client's estimate of the old one's end.
    const reset = prev !== undefined && h.remaining > prev.minRemaining + inFlight;
    if (h.resetMs <= 0 || (!reset && prev?.assumed === true && now < prev.start)) return;
    const sameWindow = !reset && prev !== undefined && prev.end > now && Math.abs(prev.end - end) < 1000;
    const minRemaining = Math.min(prev?.minRemaining ?? Infinity, h.remaining);
    if (sameWindow && prev.assumed) {
      // The server now describes the window this client only assumed: its end is the true one.
      this.window = {
        ...prev,
        end,
        budget: Math.min(prev.budget, budget),
        assumed: false,
        minRemaining: h.remaining,
      };
      return;
    }
    // Answers can arrive out of order: within one window the smaller budget is the truer one.
    if (sameWindow && prev.budget <= budget) {
      prev.minRemaining = minRemaining;
      return;
    }
    // Servers round the reset up to whole seconds, so the earliest estimate of one window is the truest.
    this.window = sameWindow
      ? { ...prev, end: Math.min(prev.end, end), budget, minRemaining }
      : { start: now, end, budget, nextSlot: now, assumed: false, minRemaining: h.remaining };
  }

  /** The window's length and budget, so the next window is paced before any answer describes it. */
  private learnPolicy(h: RateLimitHeaders): void {
    const limit = Math.max(h.limit ?? 0, h.remaining + 1, this.policy?.limit ?? 0);
    // A reset is at most the window's length; servers round it to whole seconds.
    const windowMs = Math.max(1000, Math.ceil(h.resetMs / 1000) * 1000, this.policy?.windowMs ?? 0);
    this.policy = { limit, windowMs };
  }

  /**
   * Books the earliest slot at or after `at` in the server's window, spreading what is left of its
   * budget evenly over the rest of it; or, when the window is spent, says when to ask again.
   */
  private windowSlot(at: number): { at: number; booked: boolean } {
    let w = this.window;
    if (!w || !this.policy) return { at, booked: true };
    if (at >= w.end) {
      // The next window has the same policy. Pacing it from its start (not sending everything at
      // its first instant) keeps a run at concurrency 32 from meeting a 429 after the first headers.
      w = {
        start: at,
        end: at + this.policy.windowMs,
        budget: this.policy.limit,
        nextSlot: at,
        assumed: true,
        minRemaining: Infinity,
      };
      this.window = w;
    }
    const slot = Math.max(at, w.nextSlot);
    if (w.budget <= 0 || slot >= w.end) return { at: w.end, booked: false };
    w.nextSlot = slot + (w.end - slot) / w.budget;
    w.budget -= 1;
    return { at: slot, booked: true };
  }
}
