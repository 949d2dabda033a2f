/**
 * Okta's rate limit as the stand-in plays it: one quota per family of endpoints (Okta's
 * "buckets", named as src/desired/sources/okta/rate-families.ts names them), each shared by every
 * integration of the organization, in fixed windows on the stand-in's clock. Each family may have
 * its own limit and window, and its windows may start at their own moment (`offsetSeconds`), so
 * families reset at different moments as they do in a busy organization. Another integration
 * plays its part two ways: `others` (the share of each family's window it spends as the window
 * opens) and `spend()`. On every /api/v1 answer: `X-Rate-Limit-Limit`, `X-Rate-Limit-Remaining`
 * and `X-Rate-Limit-Reset` of the request's family (the epoch second its window ends, on the
 * stand-in's clock, which the `Date` header also tells). A request over its family's quota is
 * refused with 429 and not counted.
 */
import { oktaRateFamily } from "../../desired/sources/okta/rate-families.js";
import type { QuotaOptions, QuotaWindow } from "./types.js";

export interface QuotaAnswer {
  allowed: boolean;
  headers: Record<string, string>;
}

/** The families `spend()` without a family spends in: the ones usersync reads. */
const READ_FAMILIES = ["/api/v1/groups", "/api/v1/groups/{id}", "/api/v1/groups/{id}/users"];

export class Quota {
  /** Every family's windows, in the order they opened. */
  readonly windows: QuotaWindow[] = [];
  constructor(
    private readonly o: QuotaOptions,
    private readonly now: () => number,
  ) {}

  /** The family of a request path (`/api/v1/groups/00g1/users?after=…`). */
  familyOf(path: string): string {
    return oktaRateFamily(path);
  }

  private settings(family: string): { limit: number; windowMs: number; offsetMs: number; others: number } {
    const f = this.o.families?.[family] ?? {};
    return {
      limit: f.limit ?? this.o.limit,
      windowMs: (f.windowSeconds ?? this.o.windowSeconds) * 1000,
      offsetMs: (f.offsetSeconds ?? 0) * 1000,
      others: this.o.others?.[family] ?? 0,
    };
  }

  /** The family's window now; a new one opens with the others' share already spent. */
  current(family: string): QuotaWindow {
    const s = this.settings(family);
    const start = Math.floor((this.now() - s.offsetMs) / s.windowMs) * s.windowMs + s.offsetMs;
    const last = this.windows.findLast((w) => w.family === family);
    if (last && last.start === start) return last;
    const fresh: QuotaWindow = {
      family,
      start,
      end: start + s.windowMs,
      limit: s.limit,
      used: 0,
      spentByOthers: 0,
      refused: 0,
    };
    this.windows.push(fresh);
    if (s.others > 0) this.spendIn(fresh, Math.floor(s.limit * s.others));
    return fresh;
  }

  /** One request to `path`: counted in its family's window if it has room, else refused. */
  take(path: string): QuotaAnswer {
    const w = this.current(this.familyOf(path));
    const allowed = w.used < w.limit;
    if (allowed) w.used++;
    else w.refused++;
    return { allowed, headers: this.headers(w) };
  }

  /**
   * Another integration of the customer's spends `n` of the current window of `family` (a family
   * name or a path), or of each family usersync reads when none is named.
   */
  spend(n: number, family?: string): void {
    const families =
      family === undefined ? READ_FAMILIES : [family.includes("{") ? family : this.familyOf(family)];
    for (const f of families) this.spendIn(this.current(f), n);
  }

  private spendIn(w: QuotaWindow, n: number): void {
    const spent = Math.max(0, Math.min(n, w.limit - w.used));
    w.used += spent;
    w.spentByOthers += spent;
  }

  /** What `family` (a name or a path) has left in its current window. */
  remaining(family = "/api/v1/groups"): number {
    const w = this.current(family.includes("{") ? family : this.familyOf(family));
    return w.limit - w.used;
  }

  private headers(w: QuotaWindow): Record<string, string> {
    return {
      "X-Rate-Limit-Limit": String(w.limit),
      "X-Rate-Limit-Remaining": String(Math.max(0, w.limit - w.used)),
      "X-Rate-Limit-Reset": String(Math.ceil(w.end / 1000)),
    };
  }
}
