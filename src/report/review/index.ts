/** The access review's renderers (docs/audits.md): CSV, JSON, Markdown, HTML. */
import type { Review } from "../../review/types.js";
import type { Snapshot } from "../../review/snapshot.js";
import { reviewCsvChunks } from "./csv.js";
import { reviewHtmlChunks } from "./html.js";
import { snapshotJsonChunks } from "./json.js";
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
  return [...reviewChunks(snapshot, review, format)].join("");
}

/**
 * The same text in pieces, for writing a large review without one string (cli/review-output.ts).
 * JSON is the snapshot's: the review model may be left out for it (undefined).
 */
export function reviewChunks(
  snapshot: Snapshot,
  review: Review | undefined,
  format: ReviewFormat,
): Iterable<string> {
  if (format === "json") return snapshotJsonChunks(snapshot);
  if (review === undefined) throw new Error(`the ${format} format renders the review model: give it`);
  switch (format) {
    case "csv":
      return reviewCsvChunks(review);
    case "markdown":
      return [renderReviewMarkdown(review)];
    case "html":
      return reviewHtmlChunks(review);
  }
}
