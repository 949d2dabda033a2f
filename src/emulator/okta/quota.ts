/**
 * Okta's rate limit as the stand-in plays it: one quota per window for the organization, shared
 * by every integration (`spend()` plays the others), fixed windows on the stand-in's clock, and
 * on every /api/v1 answer `X-Rate-Limit-Limit`, `X-Rate-Limit-Remaining` and
 * `X-Rate-Limit-Reset` (the epoch second the window ends, on the stand-in's clock, which the
 * `Date` header also tells). A request over the quota is refused with 429 and not counted.
 */
import type { QuotaWindow } from "./types.js";

export interface QuotaAnswer {
  allowed: boolean;
  headers: Record<string, string>;
}

export class Quota {
  readonly windows: QuotaWindow[] = [];
  constructor(
    private readonly limit: number,
    private readonly windowSeconds: number,
    private readonly now: () => number,
  ) {}

  private current(): QuotaWindow {
    const length = this.windowSeconds * 1000;
    const start = Math.floor(this.now() / length) * length;
    const last = this.windows.at(-1);
    if (last && last.start === start) return last;
    const fresh: QuotaWindow = { start, limit: this.limit, used: 0, spentByOthers: 0, refused: 0 };
    this.windows.push(fresh);
    return fresh;
  }

  /** One request: counted if the window has room, else refused. */
  take(): QuotaAnswer {
    const w = this.current();
    const allowed = w.used < w.limit;
    if (allowed) w.used++;
    else w.refused++;
    return { allowed, headers: this.headers(w) };
  }

  /** Another integration of the customer's spends `n` of the current window. */
  spend(n: number): void {
    const w = this.current();
    const spent = Math.max(0, Math.min(n, w.limit - w.used));
    w.used += spent;
    w.spentByOthers += spent;
  }

  remaining(): number {
    const w = this.current();
    return w.limit - w.used;
  }

  private headers(w: QuotaWindow): Record<string, string> {
    return {
      "X-Rate-Limit-Limit": String(w.limit),
      "X-Rate-Limit-Remaining": String(Math.max(0, w.limit - w.used)),
      "X-Rate-Limit-Reset": String(Math.ceil((w.start + this.windowSeconds * 1000) / 1000)),
    };
  }
}
