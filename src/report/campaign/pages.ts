/**
 * The campaign's decision pages for a large organization (docs/audits.md, "Deciding"): a folder
 * with an index (every reviewer, their row count, links to their pages) and each reviewer's rows
 * on pages of their own, at most `rowsPerPage` rows each, in the campaign's order. Each page is
 * the decision page (html.ts) with that reviewer chosen: the same buttons, comments, kept
 * decisions and download. One file at 100,000 people would be 567 MiB, which no browser opens
 * (docs/benchmarks.md figure 16); these are about 1 MiB each. Everything is written in pieces.
 */
import type { AssignedRow, Campaign } from "../../review/campaign/types.js";
import { cspHash, escapeHtml, pageHead } from "../html-page.js";
import { num } from "../summary-lines.js";
import { campaignFacts, DECISION_CSS, factList, pageChunks } from "./html.js";

/** Rows on a reviewer's page: about 1 MiB, drawn by a browser in a moment. */
export const DEFAULT_PAGE_ROWS = 2_000;
/** Above this many rows `--html FILE` is refused for `--html-dir` (about 11 MiB, docs/audits.md). */
export const SINGLE_PAGE_MAX_ROWS = 20_000;
/** The index's marker: a folder holding it was written by usersync and may be replaced. */
export const PAGES_GENERATOR = "usersync campaign pages";

export interface ReviewerPages {
  email: string;
  rows: number;
  /** The reviewer's page files in order, names inside the folder. */
  files: string[];
}

/**
 * Each reviewer's file names: their e-mail made safe for a file name (`ann@acme.example.html`),
 * then `.2`, `.3` for the pages after the first; a name taken already gets `-2`. Reviewers are
 * sorted by e-mail, so the same campaign always gets the same names.
 */
export function pageFiles(reviewers: Campaign["reviewers"], rowsPerPage: number): ReviewerPages[] {
  const used = new Set(["index.html"]);
  return reviewers.map(({ email, rows }) => {
    const parts = Math.max(1, Math.ceil(rows / rowsPerPage));
    let safe = email.toLowerCase().replace(/[^a-z0-9._@-]/g, "_");
    if (safe === "" || safe.startsWith(".")) safe = `r${safe}`;
    const names = (base: string): string[] =>
      Array.from({ length: parts }, (_, i) => (i === 0 ? `${base}.html` : `${base}.${i + 1}.html`));
    let files = names(safe);
    for (let n = 2; files.some((f) => used.has(f)); n++) files = names(`${safe}-${n}`);
    files.forEach((f) => used.add(f));
    return { email, rows, files };
  });
}

/**
 * Where each reviewer's rows are in the campaign, in its order: one pass over the rows, 4 bytes a
 * row per reviewer (a million rows: 4 MiB), so hundreds of reviewers do not mean hundreds of passes.
 */
export function rowsByReviewer(campaign: Campaign): Map<string, Int32Array> {
  const at = new Map(campaign.reviewers.map((r) => [r.email, new Int32Array(r.rows)] as const));
  const filled = new Map<string, number>();
  campaign.rows.forEach((row, i) => {
    for (const e of row.reviewers) {
      const n = filled.get(e) ?? 0;
      at.get(e)![n] = i;
      filled.set(e, n + 1);
    }
  });
  return at;
}

/** A reviewer's rows in the campaign's order, `rowsPerPage` at a time (only references are held). */
export function* reviewerParts(
  campaign: Campaign,
  indexes: Int32Array,
  rowsPerPage: number,
): Generator<AssignedRow[]> {
  for (let start = 0; start < indexes.length; start += rowsPerPage)
    yield Array.from(indexes.subarray(start, start + rowsPerPage), (i) => campaign.rows[i]!);
}

const href = (file: string): string => escapeHtml(encodeURIComponent(file));

/** One reviewer's page `part` (1-based) of their pages, with links to the index and the pages beside it. */
export function* partPageChunks(
  campaign: Campaign,
  reviewer: ReviewerPages,
  part: number,
  rows: readonly AssignedRow[],
  rowsPerPage: number,
): Generator<string> {
  const parts = reviewer.files.length;
  const first = (part - 1) * rowsPerPage + 1;
  const where = parts > 1 ? ` (page ${part} of ${parts})` : "";
  const facts = campaignFacts(campaign);
  facts.push(["Reviewer", reviewer.email]);
  facts.push([
    "Rows",
    parts > 1
      ? `${num(first)} to ${num(first + rows.length - 1)} of ${num(reviewer.rows)}${where}`
      : num(reviewer.rows),
  ]);
  const links = [`<a href="index.html">All reviewers</a>`];
  if (part > 1) links.push(`<a rel="prev" href="${href(reviewer.files[part - 2]!)}">Previous page</a>`);
  if (part < parts) links.push(`<a rel="next" href="${href(reviewer.files[part]!)}">Next page</a>`);
  const { rows: _all, unassigned: _none, reviewers: _everyone, ...header } = campaign;
  yield* pageChunks({
    title: `${campaign.snapshot.organization}: ${reviewer.email}${where}`,
    facts,
    nav: `<nav>${links.join(" · ")}</nav>\n`,
    data: {
      ...header,
      reviewers: [{ email: reviewer.email, rows: reviewer.rows }],
      page: { reviewer: reviewer.email, part, parts },
      rows,
    },
  });
}

const INDEX_CSS = `${DECISION_CSS}\ntd.n{text-align:right}td a{margin-right:.5rem}`;
const INDEX_CSP = ["default-src 'none'", `style-src ${cspHash(INDEX_CSS)}`, "base-uri 'none'"].join("; ");

/** The folder's index: the campaign's facts, and every reviewer with their count and pages. */
export function* indexPageChunks(
  campaign: Campaign,
  reviewers: readonly ReviewerPages[],
  rowsPerPage: number,
): Generator<string> {
  const org = escapeHtml(campaign.snapshot.organization);
  const facts = campaignFacts(campaign);
  facts.push(["Rows", num(campaign.rows.length)]);
  facts.push(["Reviewers", num(reviewers.length)]);
  facts.push(["Rows without a reviewer", num(campaign.unassigned.length)]);
  const title = `Access review decisions: ${campaign.snapshot.organization}`;
  yield `${pageHead({ policy: INDEX_CSP, title, style: INDEX_CSS, generator: PAGES_GENERATOR })}<body>
<h1>Access review decisions: ${org}</h1>
${factList(facts)}
<p>Open the page with your name: it holds the rows assigned to you, at most ${num(rowsPerPage)} to a page. Decide each row, click "Download decisions" on each of your pages, and send the files to the person running the campaign (usersync campaign decide). Your decisions stay in this browser until you download them.</p>
${campaign.unassigned.length > 0 ? `<p>${num(campaign.unassigned.length)} row(s) have no reviewer: nobody can decide them until review.reviewers names who does and the campaign is opened again (the campaign file lists them).</p>\n` : ""}<table><caption>Reviewers</caption><thead><tr><th scope="col">reviewer</th><th scope="col">rows</th><th scope="col">pages</th></tr></thead>
<tbody>
`;
  for (const r of reviewers) {
    const pages = r.files
      .map((f, i) => `<a href="${href(f)}" aria-label="${escapeHtml(r.email)}, page ${i + 1}">${i + 1}</a>`)
      .join("");
    yield `<tr><td><a href="${href(r.files[0]!)}">${escapeHtml(r.email)}</a></td><td class="n">${num(r.rows)}</td><td>${pages}</td></tr>\n`;
  }
  yield `</tbody></table>
</body></html>
`;
}
