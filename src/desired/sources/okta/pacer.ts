/**
 * Okta's rate limit is the customer's, shared with every other integration of the organization:
 * this pacer spends at most `1 - headroom` of what each window had left when the run first saw
 * it, and pauses for the window's reset rather than meet a 429. It reads `X-Rate-Limit-Remaining`
 * and `X-Rate-Limit-Reset` (epoch seconds) against the answer's own `Date` header, never the
 * local clock: a machine whose clock is off would otherwise wait an hour or not at all.
 *
 * Requests in flight count as spent until their answer tells the server's count. After a pause,
 * one request goes alone until an answer shows the new window. A 429 empties the window for
 * every caller (run-wide) until its reset. The pauses add up against `maxWaitMs`; past it the
 * read cannot finish in time and `tooLong` says what to throw.
 */
import type { Headers } from "../../../service/rate-limit-headers.js";
import { headerValue } from "../../../service/rate-limit-headers.js";

export interface PacerOptions {
  /** Share of each window's remaining quota left to others, 0 to 0.95. */
  headroom: number;
  maxWaitMs: number;
  /** Local clock, only to measure how long ago an answer came. */
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** The error to throw when the pauses would pass maxWaitMs. */
  tooLong: (waitedMs: number) => Error;
  /** Called once per pause, with how long and why (for a log line). */
  onPause?: (ms: number, why: string) => void;
}

interface Window {
  /** The window's end, epoch seconds on the server's clock (the header as sent). */
  reset: number;
  /** Least `X-Rate-Limit-Remaining` seen in this window. */
  remaining: number;
  /** The run leaves at least this many requests of the window to others. */
  floor: number;
  /** Ms until the reset, by the answer's Date, and when (local clock) that answer came. */
  untilResetMs: number;
  seenAt: number;
}

/** Never wait less than this for a reset (Date and Reset have whole seconds). */
const MIN_PAUSE_MS = 250;

export interface PacerStats {
  pauses: number;
  waitedMs: number;
  refused: number;
}

export class OktaPacer {
  private window: Window | undefined;
  private inFlight = 0;
  /** The reset of the last window the run paused through: older answers come late, and are ignored. */
  private ended = 0;
  /** A successful answer came without X-Rate-Limit-* headers: nothing to pace by. */
  private blind = false;
  private pause: Promise<void> | undefined;
  private waiters: (() => void)[] = [];
  readonly stats: PacerStats = { pauses: 0, waitedMs: 0, refused: 0 };

  constructor(private readonly o: PacerOptions) {}

  /** Resolves when one more request may go. Every call must be followed by `observe`. */
  async beforeRequest(): Promise<void> {
    for (;;) {
      if (this.pause) {
        await this.pause;
        continue;
      }
      const w = this.window;
      if (w === undefined) {
        // Nothing known (the first request, or just after a reset): one request finds out;
        // an Okta that sends no rate-limit headers at all (a proxy strips them) is not paced.
        if (this.inFlight === 0 || this.blind) break;
        await new Promise<void>((resolve) => this.waiters.push(resolve));
        continue;
      }
      if (w.remaining - w.floor - this.inFlight > 0) break;
      if (this.inFlight > 0) {
        // Answers on their way may show more room (or a new window): wait for them first.
        await new Promise<void>((resolve) => this.waiters.push(resolve));
        continue;
      }
      this.startPause(w, "the run's share of this rate-limit window is spent");
    }
    this.inFlight++;
  }

  /** One answer: frees the request's place and reads the server's count. */
  observe(answer: { status: number; headers: Readonly<Record<string, string>> }): void {
    this.read(answer.headers, answer.status);
    this.settled();
  }

  /** An attempt that got no usable answer: frees its place. */
  settled(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    const waiting = this.waiters;
    this.waiters = [];
    waiting.forEach((wake) => wake());
  }

  private read(headers: Headers, status: number): void {
    const remaining = Number(headerValue(headers, "x-rate-limit-remaining"));
    const reset = Number(headerValue(headers, "x-rate-limit-reset"));
    const date = Date.parse(headerValue(headers, "date") ?? "");
    if (!Number.isFinite(remaining) || !Number.isFinite(reset) || Number.isNaN(date)) {
      if (status >= 200 && status < 300 && this.window === undefined) this.blind = true;
      return;
    }
    const seen = {
      remaining: status === 429 ? 0 : remaining,
      untilResetMs: reset * 1000 - date,
      seenAt: this.o.now(),
    };
    if (status === 429) this.stats.refused++;
    if (reset < this.ended) return;
    const w = this.window;
    if (w === undefined || reset > w.reset) {
      // A new window: what it had left before this request (and the others in flight) spent.
      const before = seen.remaining + this.inFlight;
      this.window = { reset, ...seen, floor: Math.ceil(before * this.o.headroom) };
    } else if (reset === w.reset && seen.remaining < w.remaining) {
      Object.assign(w, seen);
    }
  }

  private startPause(w: Window, why: string): void {
    const left = w.untilResetMs - (this.o.now() - w.seenAt);
    const ms = Math.max(MIN_PAUSE_MS, Math.ceil(left) + Math.floor(Math.random() * 100));
    if (this.stats.waitedMs + ms > this.o.maxWaitMs) throw this.o.tooLong(this.stats.waitedMs + ms);
    this.stats.pauses++;
    this.stats.waitedMs += ms;
    this.o.onPause?.(ms, why);
    this.ended = w.reset;
    this.pause = this.o.sleep(ms).then(() => {
      this.pause = undefined;
      this.window = undefined;
    });
  }
}
