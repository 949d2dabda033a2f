/**
 * The rate-limit headers the emulator sends, in each convention real services and gateways use,
 * so the client's reading of all of them is tested and benchmarked (`faults.rateLimit.resetHeader`).
 */

/**
 * - `delta`: `X-RateLimit-Reset` in whole seconds until the window ends (the default);
 * - `epoch-seconds`: `X-RateLimit-Reset` as the epoch second the window ends (GitHub, many gateways);
 * - `epoch-ms`: `X-RateLimit-Reset` as the epoch millisecond the window ends;
 * - `ietf`: `RateLimit` / `RateLimit-Policy` of draft-ietf-httpapi-ratelimit-headers (delta seconds).
 */
export const RESET_HEADER_MODES = ["delta", "epoch-seconds", "epoch-ms", "ietf"] as const;
export type ResetHeaderMode = (typeof RESET_HEADER_MODES)[number];

export interface RateLimitStatus {
  limit: number;
  remaining: number;
  /** Whole seconds until the current window ends (at least 1 while a window is open). */
  resetSeconds: number;
  /** Epoch ms the current window ends. */
  resetAt: number;
  windowSeconds: number;
  /** How the headers say it (`faults.rateLimit.resetHeader`). */
  mode: ResetHeaderMode;
  exceeded: boolean;
}

/** Epoch windows start on multiples of the window length, as fixed-window gateways keyed by time do. */
export function alignsWindows(mode: ResetHeaderMode | undefined): boolean {
  return mode === "epoch-seconds" || mode === "epoch-ms";
}

export function rateLimitHeaders(rate: RateLimitStatus): Record<string, string | number> {
  switch (rate.mode) {
    case "epoch-seconds":
      return xHeaders(rate, Math.ceil(rate.resetAt / 1000));
    case "epoch-ms":
      return xHeaders(rate, rate.resetAt);
    case "ietf":
      return {
        RateLimit: `"default";r=${rate.remaining};t=${rate.resetSeconds}`,
        "RateLimit-Policy": `"default";q=${rate.limit};w=${rate.windowSeconds}`,
      };
    default:
      return xHeaders(rate, rate.resetSeconds);
  }
}

function xHeaders(rate: RateLimitStatus, reset: number): Record<string, number> {
  return {
    "X-RateLimit-Limit": rate.limit,
    "X-RateLimit-Remaining": rate.remaining,
    "X-RateLimit-Reset": reset,
  };
}
