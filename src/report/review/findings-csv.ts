/**
 * The review's findings as CSV (docs/audits.md "CSV"): one row per finding, in the order a
 * reviewer reads them (high first), each naming the snapshot row it is about and the snapshot it
 * came from. Written beside the access CSV: review.csv -> review-findings.csv.
 */
import { csvLine } from "../../desired/csv-cell.js";
import type { Review } from "../../review/types.js";
import { SNAPSHOT_COLUMNS, snapshotCells, type CsvOptions } from "./csv.js";

export const FINDING_COLUMNS = [
  "severity",
  "kind",
  "person",
  "email",
  "workspace",
  "row_id",
  "detail",
  ...SNAPSHOT_COLUMNS,
] as const;

export function renderFindingsCsv(review: Review, options: CsvOptions = {}): string {
  const org = options.organization === true ? [review.snapshot.organization] : [];
  const lines: string[] = [];
  if (options.header !== false)
    lines.push(csvLine([...(options.organization ? ["organization"] : []), ...FINDING_COLUMNS]));
  const snap = snapshotCells(review);
  for (const f of review.findings)
    lines.push(
      csvLine([
        ...org,
        f.severity,
        f.kind,
        f.person.replace(/^login:/, ""),
        f.email ?? "",
        f.workspace ?? "",
        f.rowId ?? "",
        f.detail,
        ...snap,
      ]),
    );
  return lines.join("");
}

/** Where the findings CSV goes beside the access CSV: `review.csv` -> `review-findings.csv`. */
export function findingsCsvPath(accessPath: string): string {
  return /\.csv$/i.test(accessPath)
    ? accessPath.replace(/\.csv$/i, "-findings.csv")
    : `${accessPath}-findings.csv`;
}
