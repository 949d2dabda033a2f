/**
 * Issue 46 item 4 in the files people read: access usersync removed says when and by which run,
 * and a leaver says since when the source showed them gone, in the CSV (the `change` cell and the
 * `gone_since` column) and the Markdown (the changes table). The page is in review-html.test.ts.
 */
import { parse as parseCsv } from "csv-parse/sync";
import { expect, test } from "vitest";
import { renderReviewCsv } from "../../src/report/review/csv.js";
import { renderReviewMarkdown } from "../../src/report/review/markdown.js";
import { aDatedReview, DATED_REMOVAL } from "./review-fixture.js";

const { removedAt: REMOVED, runId: RUN, goneSince: GONE } = DATED_REMOVAL;

test("the CSV's lost row dates the removal, names the run and the leaving; the leaver's rows say gone_since", () => {
  const rows = parseCsv(renderReviewCsv(aDatedReview()), { columns: true }) as Array<Record<string, string>>;
  const lost = rows.find((r) => r["row_id"] === "leaver|finance")!;
  expect(lost["last_change"]).toBe(REMOVED);
  expect(lost["change"]).toBe(
    `accessLost VIEW -> - (removed by usersync ${REMOVED}, run ${RUN}) (left the source ${GONE})`,
  );
  expect(rows.filter((r) => r["person"] === "leaver").map((r) => r["gone_since"])).toEqual([GONE, GONE]);
  expect(rows.filter((r) => r["person"] === "jane").every((r) => r["gone_since"] === "")).toBe(true);
});

test("the Markdown's changes table says when usersync removed it, by which run, and when they left", () => {
  expect(renderReviewMarkdown(aDatedReview())).toContain(
    `| accessLost | leaver@example.com | finance | VIEW | removed by usersync ${REMOVED}, run ${RUN}; left the source ${GONE} |`,
  );
});
