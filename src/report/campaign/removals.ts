/**
 * What a directory's owner must change (docs/audits.md, "Remediation"): one CSV line per change
 * the source must make for a revoke or change decision: `removeFromGroup` (the member out of the
 * directory group that gives the access: `directory_group`, the group its group rule maps to the
 * user group `group`) or `narrowGrant` (a grant the source gives the person, to keep only `keep`),
 * each with the decision's row, reviewer and kind.
 */
import { csvLine } from "../../desired/csv-cell.js";
import type { RowRemedy } from "../../review/campaign/remedies.js";

export const REMOVAL_COLUMNS = [
  "action",
  "directory_group",
  "group",
  "workspace",
  "keep",
  "member_email",
  "member_id",
  "row_id",
  "decision",
  "reviewer",
] as const;

export function renderRemovalsCsv(remedies: readonly RowRemedy[]): string {
  const lines = [csvLine(REMOVAL_COLUMNS)];
  for (const r of remedies)
    for (const a of r.actions)
      if (a.via === "source")
        lines.push(
          csvLine([
            a.kind === "leaveGroup" ? "removeFromGroup" : "narrowGrant",
            a.directoryGroup ?? "",
            a.kind === "leaveGroup" ? a.group : "",
            a.kind === "narrowGrant" ? a.workspace : a.kind === "narrowOrganization" ? "(organization)" : "",
            a.kind === "leaveGroup" ? "" : a.keep.join(" "),
            r.email ?? "",
            r.userId ?? "",
            r.rowId,
            r.decision.decision,
            r.decision.reviewer,
          ]),
        );
  return lines.join("");
}
