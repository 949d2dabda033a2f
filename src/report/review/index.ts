/** The access review's renderers (docs/audits.md): CSV, JSON, Markdown, HTML. */
import type { Review } from "../../review/types.js";
import { renderReviewCsv } from "./csv.js";
import { renderReviewHtml } from "./html.js";
import { renderReviewJson } from "./json.js";
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
export { renderReviewJson } from "./json.js";
export { renderReviewMarkdown } from "./markdown.js";

export function renderReview(review: Review, format: ReviewFormat): string {
  switch (format) {
    case "csv":
      return renderReviewCsv(review);
    case "json":
      return renderReviewJson(review);
    case "markdown":
      return renderReviewMarkdown(review);
    case "html":
      return renderReviewHtml(review);
  }
}
