/**
 * How long the planned steps take at the configured limits. Each step is one request; a
 * request is assumed to take 100 ms, so `concurrency` workers send at most concurrency / 0.1 s
 * requests a second, and the rate limit caps that.
 */
import type { Plan, Step } from "./types.js";

export interface Limits {
  concurrency: number;
  requestsPerSecond: number;
}

export const ASSUMED_LATENCY_SECONDS = 0.1;
/** Used when the caller passes no limits (the config's own defaults should be passed instead). */
export const defaultLimits: Limits = { concurrency: 8, requestsPerSecond: 10 };

export function estimate(steps: readonly Step[], limits: Limits): Plan["estimate"] {
  const requests = steps.filter((s) => s.status === "planned").length;
  const rate = Math.min(limits.requestsPerSecond, limits.concurrency / ASSUMED_LATENCY_SECONDS);
  const seconds = requests === 0 || rate <= 0 ? 0 : Math.ceil((requests / rate) * 10) / 10;
  return { requests, seconds };
}
