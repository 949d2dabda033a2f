/**
 * Okta's rate limit is the customer's, shared with every other integration of the organization,
 * and counted per family of endpoints (rate-families.ts): the groups listing, one group, a group's
 * members... each with its own window, which resets at its own moment. This pacer keeps one
 * window per family, learnt only from the answers to that family, and spends at most
 * `1 - headroom` of what each family's window had left when the run first saw it; then that
 * family pauses for its window's reset rather than meet a 429, while the other families go on.
 * It reads `X-Rate-Limit-Remaining` and `X-Rate-Limit-Reset` (epoch seconds) against the
 * answer's own `Date` header, never the local clock: a machine whose clock is off would otherwise
 * wait an hour or not at all.
 *
 * Requests in flight count as spent until their answer tells the server's count. After a pause,
 * one request of the family goes alone until an answer shows the new window. A 429 empties the
 * family's window until the reset that answer announced, whoever spent it (this run or the
 * others), and every request of the family waits for it. The pauses add up against `maxWaitMs`;
 * past it the read cannot finish in time and `tooLong` says what to throw.
 */
import type { Headers } from "../../../service/rate-limit-headers.js";
import { headerValue } from "../../../service/rate-limit-headers.js";
import { oktaRateFamily } from "./rate-families.js";

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

/** One rate-limit family as the run knows it. */
interface Family {
  name: string;
  window: Window | undefined;
  inFlight: number;
  /** The reset of the last window the family paused through: older answers come late, and are ignored. */
  ended: number;
  /** A successful answer came without X-Rate-Limit-* headers: nothing to pace by. */
  blind: boolean;
  pause: Promise<void> | undefined;
  waiters: (() => void)[];
}

/** Never wait less than this for a reset (Date and Reset have whole seconds). */
const MIN_PAUSE_MS = 250;

export interface PacerStats {
  pauses: number;
  waitedMs: number;
  refused: number;
}

type Target = URL | string | undefined;

export class OktaPacer {
  private readonly families = new Map<string, Family>();
  readonly stats: PacerStats = { pauses: 0, waitedMs: 0, refused: 0 };

  constructor(private readonly o: PacerOptions) {}

  private family(target: Target): Family {
    const name =
      target === undefined
        ? "/api/v1"
        : oktaRateFamily(typeof target === "string" ? target : target.pathname);
    let f = this.families.get(name);
    if (!f) {
      f = { name, window: undefined, inFlight: 0, ended: 0, blind: false, pause: undefined, waiters: [] };
      this.families.set(name, f);
    }
    return f;
  }

  /** Resolves when one more request to `url` may go. Every call must be followed by `observe` or `settled`. */
  async beforeRequest(url?: URL | string): Promise<void> {
    const f = this.family(url);
    for (;;) {
      if (f.pause) {
        await f.pause;
        continue;
      }
      const w = f.window;
      if (w === undefined) {
        // Nothing known (the first request, or just after a reset): one request finds out;
        // an Okta that sends no rate-limit headers at all (a proxy strips them) is not paced.
        if (f.inFlight === 0 || f.blind) break;
        await new Promise<void>((resolve) => f.waiters.push(resolve));
        continue;
      }
      if (w.remaining - w.floor - f.inFlight > 0) break;
      if (f.inFlight > 0) {
        // Answers on their way may show more room (or a new window): wait for them first.
        await new Promise<void>((resolve) => f.waiters.push(resolve));
        continue;
      }
      this.startPause(
        f,
        w,
        w.remaining === 0 ? "the window is spent" : "the run's share of the window is spent",
      );
    }
    f.inFlight++;
  }

  /**
   * One answer to `url`: frees the request's place and reads the server's count for its family.
   * True when the answer was a 429 this pacer will wait out (until the family's reset): no other
   * pause is needed for it.
   */
  observe(
    answer: { status: number; headers: Readonly<Record<string, string>> },
    url?: URL | string,
  ): boolean {
    const f = this.family(url);
    const paced = this.read(f, answer.headers, answer.status);
    this.settled(url);
    return paced;
  }

  /** An attempt to `url` that got no usable answer: frees its place. */
  settled(url?: URL | string): void {
    const f = this.family(url);
    f.inFlight = Math.max(0, f.inFlight - 1);
    const waiting = f.waiters;
    f.waiters = [];
    waiting.forEach((wake) => wake());
  }

  private read(f: Family, headers: Headers, status: number): boolean {
    const remaining = Number(headerValue(headers, "x-rate-limit-remaining"));
    const reset = Number(headerValue(headers, "x-rate-limit-reset"));
    const date = Date.parse(headerValue(headers, "date") ?? "");
    if (!Number.isFinite(remaining) || !Number.isFinite(reset) || Number.isNaN(date)) {
      if (status >= 200 && status < 300 && f.window === undefined) f.blind = true;
      return false;
    }
    const seen = {
      remaining: status === 429 ? 0 : remaining,
      untilResetMs: reset * 1000 - date,
      seenAt: this.o.now(),
    };
    if (status === 429) this.stats.refused++;
    // A late answer from a window the family already paused through tells nothing new.
    if (reset < f.ended) return status === 429;
    const w = f.window;
    if (w === undefined || reset > w.reset) {
      // A new window: what it had left before this request (and the others in flight) spent.
      const before = seen.remaining + f.inFlight;
      f.window = { reset, ...seen, floor: Math.ceil(before * this.o.headroom) };
    } else if (reset === w.reset && seen.remaining < w.remaining) {
      Object.assign(w, seen);
    }
    return status === 429;
  }

  private startPause(f: Family, w: Window, why: string): void {
    const left = w.untilResetMs - (this.o.now() - w.seenAt);
    const ms = Math.max(MIN_PAUSE_MS, Math.ceil(left) + Math.floor(Math.random() * 100));
    if (this.stats.waitedMs + ms > this.o.maxWaitMs) throw this.o.tooLong(this.stats.waitedMs + ms);
    this.stats.pauses++;
    this.stats.waitedMs += ms;
    this.o.onPause?.(ms, `${why} (${f.name})`);
    f.ended = w.reset;
    f.pause = this.o.sleep(ms).then(() => {
      f.pause = undefined;
      f.window = undefined;
    });
  }
}
