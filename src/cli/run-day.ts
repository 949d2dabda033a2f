/**
 * The day a run plans for, compared with people's start and end dates (plan/dates.ts): the
 * machine's local date (set TZ for another zone), or `--today YYYY-MM-DD` to rehearse a day.
 */
import { ConfigError } from "../errors.js";
import { isDay } from "../desired/index.js";
import { stringOption, type ParsedValues } from "./args.js";

/** `--today`, checked, or the local date now. */
export function runDay(values: ParsedValues, now: Date = new Date()): string {
  const given = stringOption(values, "today");
  if (given === undefined) {
    const pad = (n: number): string => String(n).padStart(2, "0");
    return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  }
  if (!isDay(given))
    throw new ConfigError({
      message: `--today takes a date written YYYY-MM-DD (e.g. 2026-12-01), not "${given}".`,
    });
  return given;
}
