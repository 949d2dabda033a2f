/**
 * A campaign read back (`campaign decide`, `remediate`, `close`) has a copy of each person's
 * strings, permission lists and reasons in every one of their rows (a million rows for 100,000
 * people) where a few distinct ones would do. This makes rows of equal values share one, as they
 * do when the campaign is opened (docs/benchmarks.md figure 16). The values do not change.
 */
import { interner } from "../snapshot-intern.js";
import type { AssignedRow } from "./types.js";

const TEXT = [
  "person",
  "userId",
  "email",
  "displayName",
  "workspace",
  "workspaceName",
  "level",
  "given",
  "status",
] as const;
const LISTS = ["permissions", "effective", "reasons", "groups", "reviewers"] as const;

/** A function that shares a row's equal parts with the rows before it (in place); other values pass. */
export function campaignRowSharer(): (value: unknown) => unknown {
  const text = interner<string>((s) => s);
  const list = interner<unknown[]>((l) => JSON.stringify(l));
  return (value) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
    const row = value as Record<string, unknown>;
    for (const k of TEXT) if (typeof row[k] === "string") row[k] = text(row[k]);
    for (const k of LISTS) if (Array.isArray(row[k])) row[k] = list(row[k]);
    return row as Partial<AssignedRow>;
  };
}
