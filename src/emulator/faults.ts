/**
 * Fault injection: one seeded PRNG draw per faultable request, in arrival order, so a run with a
 * given `faults.seed` injects the same faults into the same requests every time.
 */
import { alignsWindows, type RateLimitStatus } from "./rate-headers.js";
import type { BrokenAnswerRule, EmulatorFaults, RequestLogEntry } from "./types.js";

export type FaultKind = NonNullable<RequestLogEntry["fault"]>;
/** The faults one draw decides between, stacked as bands. */
type BandFault = "drop" | "500" | "503" | "429" | "lose";

/** mulberry32: small, fast, good enough to spread faults evenly; not for anything secret. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function matches(pattern: RegExp | undefined, path: string): boolean {
  if (!pattern) return true;
  pattern.lastIndex = 0; // a /g or /y pattern keeps state between test() calls
  return pattern.test(path);
}

export interface FaultDecision {
  /** Injected instead of (or, for `lose`, after) the normal answer. */
  fault?: BandFault;
  /** The rule that breaks the answer if it succeeds (broken-answers.ts); its own draw. */
  broken?: BrokenAnswerRule;
  delayMs: number;
}

export class FaultEngine {
  private faults: EmulatorFaults = {};
  private draw: () => number = mulberry32(0);
  // Jitter has its own stream so that the fault draws stay exactly one per request.
  private jitterDraw: () => number = mulberry32(1);
  // Broken answers too, so adding them leaves the other faults' draws where they were.
  private brokenDraw: () => number = mulberry32(2);
  private windowStart = 0;
  private windowCount = 0;

  constructor(faults: EmulatorFaults | undefined) {
    this.set(faults ?? {});
  }

  set(faults: EmulatorFaults): void {
    this.faults = { ...faults };
    const seed = faults.seed ?? 0x5eed;
    this.draw = mulberry32(seed);
    this.jitterDraw = mulberry32(seed ^ 0x9e3779b9);
    this.brokenDraw = mulberry32(seed ^ 0x85ebca6b);
    this.windowStart = 0;
    this.windowCount = 0;
  }

  get current(): Readonly<EmulatorFaults> {
    return this.faults;
  }

  applies(path: string): boolean {
    return matches(this.faults.pathPattern, path);
  }

  /** Counts the request against the fixed window; undefined when no rate limit is configured. */
  countRateLimit(now: number): RateLimitStatus | undefined {
    const rl = this.faults.rateLimit;
    if (!rl) return undefined;
    const windowMs = rl.windowSeconds * 1000;
    if (this.windowStart === 0 || now >= this.windowStart + windowMs) {
      this.windowStart = alignsWindows(rl.resetHeader) ? now - (now % windowMs) : now;
      this.windowCount = 0;
    }
    this.windowCount++;
    return this.rateStatus(now, this.windowCount > rl.limit);
  }

  /** The window's status without counting a request (for answers that do not count, e.g. 401). */
  peekRateLimit(now: number): RateLimitStatus | undefined {
    const rl = this.faults.rateLimit;
    if (!rl) return undefined;
    if (this.windowStart === 0 || now >= this.windowStart + rl.windowSeconds * 1000) {
      const windowMs = rl.windowSeconds * 1000;
      const start = alignsWindows(rl.resetHeader) ? now - (now % windowMs) : now;
      return this.status({ remaining: rl.limit, endsAt: start + windowMs, now, exceeded: false });
    }
    return this.rateStatus(now, false);
  }

  private rateStatus(now: number, exceeded: boolean): RateLimitStatus {
    const rl = this.faults.rateLimit as { limit: number; windowSeconds: number };
    const endsAt = this.windowStart + rl.windowSeconds * 1000;
    return this.status({ remaining: Math.max(0, rl.limit - this.windowCount), endsAt, now, exceeded });
  }

  private status(s: { remaining: number; endsAt: number; now: number; exceeded: boolean }): RateLimitStatus {
    const rl = this.faults.rateLimit as NonNullable<EmulatorFaults["rateLimit"]>;
    return {
      limit: rl.limit,
      remaining: s.remaining,
      resetSeconds: Math.max(1, Math.ceil((s.endsAt - s.now) / 1000)),
      resetAt: s.endsAt,
      windowSeconds: rl.windowSeconds,
      mode: rl.resetHeader ?? "delta",
      exceeded: s.exceeded,
    };
  }

  /**
   * One draw decides the fault: the shares are stacked as bands on [0, 1) in the order drop,
   * 500, 503, 429, lose. `lose` only hits writes; a read drawn into that band gets no fault.
   */
  decide(isWrite: boolean): FaultDecision {
    const f = this.faults;
    const latency = (f.latencyMs ?? 0) + (f.jitterMs ? this.jitterDraw() * f.jitterMs : 0);
    const delayMs = Math.round(latency);
    const u = this.draw();
    const bands: Array<[BandFault, number | undefined]> = [
      ["drop", f.dropConnection],
      ["500", f.error500],
      ["503", f.error503],
      ["429", f.throttle429],
      ["lose", f.loseAnswer],
    ];
    let edge = 0;
    for (const [kind, share] of bands) {
      edge += share ?? 0;
      if (u < edge) {
        if (kind === "lose" && !isWrite) break;
        return { fault: kind, delayMs };
      }
    }
    return { delayMs };
  }

  /**
   * The broken-answer rule for a request: one draw of its own stream when any rule matches the
   * method and path, the matching rules' shares stacked as bands in their order.
   */
  decideBroken(method: string, path: string): BrokenAnswerRule | undefined {
    const rules = (this.faults.brokenAnswers ?? []).filter(
      (r) => (r.methods ?? ["GET"]).includes(method) && matches(r.pathPattern, path),
    );
    if (rules.length === 0) return undefined;
    const u = this.brokenDraw();
    let edge = 0;
    for (const rule of rules) {
      edge += rule.share ?? 1;
      if (u < edge) return rule;
    }
    return undefined;
  }
}
