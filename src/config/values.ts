/**
 * The value types of config keys that are more than a zod primitive: a count or a percentage of
 * managed users (the guards), and a duration (policy.revokeAfter).
 */
import { z } from "zod";

export const PERCENT_PATTERN = /^\d+(\.\d+)?%$/;

/**
 * A count or a percentage of managed users (`policy.maxDeletes`, `source.minUsers`). A
 * percentage over 100% (a typo such as "150%") would switch a guard off without a word, and so
 * would "0%" for a minimum: both are refused, like a negative count.
 */
export function countOrPercent(o: { minCount: 0 | 1; help: string; key: string }) {
  return z.union([z.number(), z.string()], { error: o.help }).superRefine((value, ctx) => {
    const why = countOrPercentProblem(value, o);
    if (why !== undefined) ctx.addIssue({ code: "custom", message: why });
  });
}

function countOrPercentProblem(
  value: number | string,
  o: { minCount: 0 | 1; help: string; key: string },
): string | undefined {
  if (typeof value === "number")
    return Number.isSafeInteger(value) && value >= o.minCount
      ? undefined
      : `must be a whole number of users, ${o.minCount} or more (or a percentage such as "10%")`;
  if (!PERCENT_PATTERN.test(value)) return o.help;
  const percent = Number(value.slice(0, -1));
  if (percent > 100)
    return `"${value}" is more than 100% of the managed users: write at most "100%", or a count`;
  if (o.minCount > 0 && percent === 0)
    return `"0%" would turn this guard off: write more than "0%", or remove ${o.key} if you mean no minimum`;
  return undefined;
}

export const DURATION_PATTERN = /^(0|(\d+[wdhms])+)$/; // "72h", "3d", "1d12h", "90m", "30s" or "0"
const REVOKE_AFTER_HELP =
  'must be a duration such as "72h", "3d", "1d12h" or "90m" (units w, d, h, m, s), or 0 for none; a number of runs is not supported (docs/configuration.md)';

/** `policy.revokeAfter`: a duration, or 0 for none. */
export const revokeAfter = z.union([z.string().regex(DURATION_PATTERN, REVOKE_AFTER_HELP), z.literal(0)], {
  error: REVOKE_AFTER_HELP,
});

const UNIT_SECONDS: Record<string, number> = { w: 604_800, d: 86_400, h: 3600, m: 60, s: 1 };

/** `"1d12h"` → 129600; `0`, `"0"` or unset → 0. The schema has checked the shape (DURATION_PATTERN). */
export function durationSeconds(value: string | number | undefined): number {
  let seconds = 0;
  for (const [, n, unit] of String(value ?? "0").matchAll(/(\d+)([wdhms])/g))
    seconds += Number(n) * UNIT_SECONDS[unit!]!;
  return seconds;
}
