/**
 * How a run's steady rate follows the service's 429s: sustained 429s halve it (multiplicative
 * decrease), calm stretches raise it again in steps (additive increase, see `RateLimiter.speedUp`),
 * and the run says once, at the end, how low it went and where it ended. The Transport tells it
 * of every answer; the RateLimiter carries the rate.
 */
import type { Logger } from "pino";
import type { RateLimiter } from "./rate-limiter.js";

/**
 * 429s are "sustained" (the run slows down) when at least SUSTAINED of them answered requests sent
 * after an earlier 429 was answered, and they are at least SUSTAINED_SHARE of the answers (of at
 * least SUSTAINED_ANSWERS) since the rate last changed: a service that throttles now and then, or
 * a stray 429 at a window's edge, does not drag the whole run down to a crawl.
 *
 * Why a fifth of fifty: a service that answers 5% of requests with 429 at random (load shedding,
 * not a quota this client exceeds) must not slow the run, since a slower run meets the same 5%.
 * With 10% of 20 answers it did about one run in four (the reliability suite's fault soak spent
 * 3.5 minutes at half speed); with 20% of 50 it is about 1 in 5,000 (a simulation of the rule over
 * 5,400 answers). A quota the run does exceed answers a third or more of its requests with 429,
 * which this still catches within the first sixty answers 98 times in 100.
 */
export const SUSTAINED = 3;
export const SUSTAINED_SHARE = 0.2;
export const SUSTAINED_ANSWERS = 50;

/**
 * A calm stretch (the rate steps back up): CALM_ANSWERS answers without a 429 to requests sent
 * after the last 429 and the last change of rate, and CALM_MS since the later of the two. Both:
 * the count keeps a slow run (100 answers at 2 per second take 50 s) from climbing on too little
 * evidence, the time keeps a fast one (100 answers at 40 per second take 2.5 s) from climbing
 * before the other client sharing the quota, whose burst caused the 429s, has had time to show up.
 */
export const CALM_ANSWERS = 100;
export const CALM_MS = 10_000;

export interface SlowdownOptions {
  limiter: RateLimiter;
  now: () => number;
  logger: Logger;
}

export class Slowdown {
  /** When the last 429 was answered: a 429 to a request sent after it means pacing is not enough. */
  private lastThrottleAt = 0;
  /** When the rate last changed (slowed down or sped up). */
  private changedAt = 0;
  private sustained = 0;
  /** Answers and 429s since the rate last changed (or the start). */
  private answers = 0;
  private throttled = 0;
  /** Answers without a 429 to requests sent after the last 429 and the last change of rate. */
  private calm = 0;
  /** The lowest rate a slowdown reached; undefined while the run never slowed down. */
  private lowest: number | undefined;

  constructor(private readonly o: SlowdownOptions) {}

  /** Every answer of the service (not a lost connection); `sentAt` is when its request went. */
  answered(status: number, sentAt: number): void {
    this.answers += 1;
    if (status === 429) this.onThrottled(sentAt);
    else this.onAnswer(sentAt);
  }

  /**
   * Said once, at the end, at warn, when the run slowed down at all: the lowest rate and the rate
   * it ended at (`requestsPerSecond`, 0 = back to unlimited); it recommends a lower
   * execution.requestsPerSecond only when the run ended slower than it was configured.
   */
  report(throttledInAll: number): void {
    if (this.lowest === undefined) return;
    const lowest = round(this.lowest);
    const final = round(this.o.limiter.rate);
    const head = `the service kept answering 429 (${throttledInAll} in all): the run slowed down to ${lowest} requests per second`;
    let tail: string;
    if (!this.o.limiter.slowed) {
      tail = ` at the lowest and was back ${final === 0 ? "to unlimited" : `at ${final}`} by the end`;
    } else {
      const ended =
        final === lowest ? " and ended at that rate" : ` at the lowest and was at ${final} by the end`;
      tail = `${ended}; lower execution.requestsPerSecond to ${final} to start there`;
    }
    this.o.logger.warn({ throttled: throttledInAll, lowest, requestsPerSecond: final }, head + tail);
  }

  private onThrottled(sentAt: number): void {
    this.calm = 0;
    // Only requests sent at the current rate are evidence against it, and one stray 429 at a
    // window's edge is not "sustained": it takes SUSTAINED of them to slow down, once per wave.
    const evidence = this.lastThrottleAt > 0 && sentAt >= this.lastThrottleAt && sentAt >= this.changedAt;
    if (evidence) this.sustained += 1;
    this.throttled += 1;
    const share = this.throttled / Math.max(1, this.answers);
    if (this.sustained >= SUSTAINED && this.answers >= SUSTAINED_ANSWERS && share >= SUSTAINED_SHARE) {
      const rate = this.o.limiter.slowDown();
      this.lowest = Math.min(this.lowest ?? Infinity, rate);
      this.changed();
      this.o.logger.debug({ requestsPerSecond: round(rate) }, "sustained 429s: slowing down");
    }
    this.lastThrottleAt = Math.max(this.lastThrottleAt, this.o.now());
  }

  private onAnswer(sentAt: number): void {
    const since = Math.max(this.lastThrottleAt, this.changedAt);
    // Sent before the last 429 or change of rate: says nothing about the rate now.
    if (sentAt < since) return;
    this.calm += 1;
    if (!this.o.limiter.slowed || this.calm < CALM_ANSWERS || this.o.now() - since < CALM_MS) return;
    const rate = this.o.limiter.speedUp();
    this.changed();
    this.o.logger.debug({ requestsPerSecond: round(rate) }, "calm stretch: speeding up");
  }

  private changed(): void {
    this.changedAt = this.o.now();
    this.sustained = 0;
    this.answers = 0;
    this.throttled = 0;
    this.calm = 0;
  }
}

/** Halving 50 gives 3.125: two decimals are enough to read and to set. */
function round(rps: number): number {
  return Math.round(rps * 100) / 100;
}
