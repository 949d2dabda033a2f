/**
 * The campaign as the CSV reviewers fill in a spreadsheet (docs/audits.md, "Deciding"): one row per campaign row, its reviewers, what it holds and why, and two empty
 * columns, `decision` (`keep`, `revoke`, or `change` followed by the permissions to keep:
 * `change VIEW`) and `comment`. `campaign decide --reviewer EMAIL FILE` reads it back by `row_id`.
 */
import { csvLine } from "../../desired/csv-cell.js";
import type { Campaign } from "../../review/campaign/types.js";

export const CAMPAIGN_COLUMNS = [
  "row_id",
  "reviewers",
  "person",
  "email",
  "display_name",
  "status",
  "workspace",
  "workspace_name",
  "permissions",
  "reason",
  "given",
  "decision",
  "comment",
] as const;

export function renderCampaignCsv(campaign: Campaign, reviewer?: string): string {
  const lines = [csvLine(CAMPAIGN_COLUMNS)];
  for (const r of campaign.rows) {
    if (reviewer !== undefined && !r.reviewers.includes(reviewer)) continue;
    lines.push(
      csvLine([
        r.rowId,
        r.reviewers.join(" "),
        r.userId ?? r.person,
        r.email ?? "",
        r.displayName ?? "",
        r.status,
        r.workspace ?? "(organization)",
        r.workspaceName ?? "",
        r.permissions.join(" "),
        r.reasons.map((x) => `${x.text}: ${x.permissions.join(" ")} (${x.given})`).join(" | "),
        r.given,
        "",
        "",
      ]),
    );
  }
  return lines.join("");
}
