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
  return [...campaignCsvChunks(campaign, reviewer)].join("");
}

/** The same text a line at a time: a campaign of 100,000 people is never one string. */
export function* campaignCsvChunks(campaign: Campaign, reviewer?: string): Generator<string> {
  yield csvLine(CAMPAIGN_COLUMNS);
  for (const r of campaign.rows) {
    if (reviewer !== undefined && !r.reviewers.includes(reviewer)) continue;
    yield csvLine([
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
    ]);
  }
}
