/**
 * The access review as JSON: the Review object itself (review/types.ts), described by
 * docs/review.schema.json. Keys in the order the model builds them, so the same organization state
 * gives the same bytes except for the snapshot's time and the listing's request count.
 */
import type { Review } from "../../review/types.js";

export function renderReviewJson(review: Review): string {
  return `${JSON.stringify(review, null, 2)}\n`;
}
