/**
 * NOT BUILT IN THIS BRANCH (i39core): the self-contained HTML page of the access review is
 * written on branch i39html (src/report/review/html.ts there), rendering the same Review model.
 * The lead replaces this stub with that file at merge; until then `--format html` stops with a
 * clear message (exit 4) rather than writing a page.
 */
import { ConfigError } from "../../errors.js";
import type { Review } from "../../plan/access/review-types.js";

export function renderReviewHtml(review: Review): string {
  void review;
  throw new ConfigError({
    message:
      "--format html is not built in this branch (the HTML page of the review comes with branch i39html): use --format csv, json or markdown.",
  });
}
