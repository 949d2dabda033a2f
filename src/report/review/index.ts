/** The access review's renderers (docs/audits.md): CSV, JSON, Markdown, HTML. */
import type { Review } from "../../review/types.js";
import type { Snapshot } from "../../review/snapshot.js";
import { renderReviewCsv } from "./csv.js";
import { renderReviewHtml } from "./html.js";
import { renderSnapshotJson } from "./json.js";
import { renderReviewMarkdown } from "./markdown.js";

export const REVIEW_FORMATS = ["csv", "json", "markdown", "html"] as const;
export type ReviewFormat = (typeof REVIEW_FORMATS)[number];

export {
  renderReviewCsv,
  renderOrganizationCsv,
  organizationCsvPath,
  ACCESS_COLUMNS,
  ORGANIZATION_COLUMNS,
} from "./csv.js";
export { renderSnapshotJson } from "./json.js";
export { renderFindingsCsv, findingsCsvPath, FINDING_COLUMNS } from "./findings-csv.js";
export { renderReviewMarkdown } from "./markdown.js";

/** One format of a review, from its snapshot and the review model read back from it (review/from-snapshot.ts). */
export function renderReview(snapshot: Snapshot, review: Review, format: ReviewFormat): string {
  switch (format) {
    case "csv":
      return renderReviewCsv(review);
    case "json":
      return renderSnapshotJson(snapshot);
    case "markdown":
      return renderReviewMarkdown(review);
    case "html":
      return renderReviewHtml(review);
  }
}
