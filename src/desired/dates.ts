/**
 * A person's `startDate` and `endDate` (issue 49): calendar days, `YYYY-MM-DD`, the first and the
 * last day with access. The planner compares them with the run's day (plan/dates.ts).
 */
import { visible } from "./characters.js";

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar day written `YYYY-MM-DD` (2026-02-30 is not one). */
export function isDay(text: string): boolean {
  const m = DAY.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

type Fail = (field: "startDate" | "endDate", rule: string, message: string) => void;

/** The two dates of a record's text fields (CSV cells or YAML values), checked. */
export function readDates(
  raw: { text: Partial<Record<"startDate" | "endDate", string>> },
  fail: Fail,
): { startDate: string | undefined; endDate: string | undefined } {
  const read = (field: "startDate" | "endDate"): string | undefined => {
    // YAML's core schema keeps an unquoted 2026-12-01 as text.
    const day = raw.text[field]?.trim();
    if (day === undefined || day === "") return undefined;
    if (isDay(day)) return day;
    fail(
      field,
      "bad-date",
      `"${visible(day)}" is not a date: write it as YYYY-MM-DD (e.g. 2026-12-01); a spreadsheet may need the column formatted as text or as that date format`,
    );
    return undefined;
  };
  const startDate = read("startDate");
  const endDate = read("endDate");
  if (startDate !== undefined && endDate !== undefined && endDate < startDate)
    fail(
      "endDate",
      "contradiction",
      `ends on ${endDate}, before the start date ${startDate}: correct one of them`,
    );
  return { startDate, endDate };
}
