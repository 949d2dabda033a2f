/**
 * The access review as one self-contained HTML page (docs/audits.md, "The access review's HTML page"): it loads
 * nothing (inline style and script, system fonts, no network: its Content-Security-Policy allows
 * only its own inline style and script, by hash), opens from a file, and shows findings first,
 * then the changes since the last review, who reaches which workspace and why (a row unfolds to
 * the reason chain and the filters' MAQL), every person, organization permissions, data filters
 * and workspaces, each table sortable and filterable. The header and the summary are written
 * here, escaped; the tables are built in the browser from the review embedded as JSON, through
 * `textContent` only. The same review gives the same bytes.
 */
import type { Review, ReviewSummary } from "../../review/types.js";
import { card, cspHash, escapeHtml, pageHead } from "../html-page.js";
import { num } from "../summary-lines.js";
import { jsonChunks } from "./html-json.js";
import { SECTIONS_SCRIPT } from "./html-sections-script.js";
import { REVIEW_CSS } from "./html-style.js";
import { TABLE_SCRIPT } from "./html-table-script.js";
import { VIEWS_SCRIPT } from "./html-views-script.js";

/**
 * JSON that cannot end its `<script type="application/json">` element nor open a comment there:
 * `<`, `>` and `&` as `\u` escapes (JSON.parse reads them back unchanged), and the two line
 * separators old parsers choke on.
 */
export function jsonForScript(value: unknown): string {
  return [...jsonForScriptChunks(value)].join("");
}

/** The same text in pieces: JSON.stringify's, a few levels deep (html-json.ts), each escaped. */
export function* jsonForScriptChunks(value: unknown): Generator<string> {
  for (const piece of jsonChunks(value, 3))
    yield piece.replace(/[<>&\u2028\u2029]/g, (c) => JSON_ESCAPES[c]!);
}

const JSON_ESCAPES: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

export const SCRIPT = `(function () {\n"use strict";\nvar data = JSON.parse(document.getElementById("review-data").textContent);\n${TABLE_SCRIPT}${VIEWS_SCRIPT}${SECTIONS_SCRIPT}})();\n`;

/** The page's policy: nothing but its own inline style and script; no request of any kind. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${cspHash(REVIEW_CSS)}`,
  `script-src ${cspHash(SCRIPT)}`,
  "img-src data:",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

function summaryCards(s: ReviewSummary): string {
  return [
    card(s.findings, "findings", true),
    card(s.people, "people"),
    card(s.workspaces, "workspaces"),
    card(s.groups, "groups"),
    card(s.accessRows, "person x workspace rows"),
    card(s.privilegedPeople, "privileged people (MANAGE)", true),
    card(s.unfilteredRows, "rows without a filter others have", true),
    card(s.filters, "data filters"),
    ...(s.changes !== undefined ? [card(s.changes, "changes since the last review")] : []),
  ].join("");
}

function facts(review: Review): string {
  const { snapshot: sn, evidence: ev } = review;
  const rows: Array<[string, string]> = [
    ["Organization", sn.organization],
    ["Service", sn.baseUrl],
    ["Listed at", sn.generatedAt],
    ["usersync", sn.usersyncVersion],
    ["Content digest", sn.digest],
    ["Requests used", num(ev.requests) + (ev.permissionsVia ? ` (grants read ${ev.permissionsVia})` : "")],
    [
      "Desired state",
      ev.desiredCompared
        ? `compared: ${ev.desiredSource ?? "the configured source"}${ev.mode ? `, mode ${ev.mode}` : ""}`
        : "not compared (agreement and managed flags are not known)",
    ],
    ...(review.changes
      ? [
          [
            "Compared with",
            `the review of ${review.changes.since.generatedAt} (${review.changes.since.digest})`,
          ] as [string, string],
        ]
      : []),
    ...ev.notes.map((n): [string, string] => ["Note", n]),
  ];
  return `<dl class="facts">${rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join("")}</dl>`;
}

function section(id: string, title: string, lead: string): string {
  return `<section id="${id}" aria-labelledby="${id}-h"><h2 id="${id}-h">${escapeHtml(title)}</h2><p class="lead">${escapeHtml(lead)}</p><div id="${id}-host"></div></section>`;
}

function sections(review: Review): string {
  return [
    section(
      "findings",
      `Findings (${num(review.findings.length)})`,
      "Revoked or absent people with access, hand-made direct grants, privileged access the desired state does not give, access without the filter it gives, access no group explains.",
    ),
    review.changes
      ? section(
          "changes",
          `Changes since the last review (${num(review.changes.changes.length)})`,
          `Access gained and lost, permissions raised and lowered, filters widened and narrowed, people who came and went since ${review.changes.since.generatedAt}.`,
        )
      : "",
    section(
      "access",
      "People x workspaces",
      "Effective access: direct grants, group grants (with parent groups) and hierarchy grants from parent workspaces, with the row filters that apply. Open a row to see why.",
    ),
    section("people", "People", "Everyone the organization has, with a login or not, managed or not."),
    section(
      "org",
      "Organization permissions",
      "MANAGE administers the whole organization and is flagged as privileged.",
    ),
    section(
      "filters",
      "Data filters",
      "Filters that narrow someone's rows; hand-made ones are not usersync's.",
    ),
    section(
      "workspaces",
      "Workspaces",
      "The hierarchy: hierarchy grants and filters on a workspace reach the ones below it.",
    ),
  ].join("\n");
}

function nav(review: Review): string {
  const links: Array<[string, string]> = [
    ["findings", "Findings"],
    ...(review.changes ? [["changes", "Changes"] as [string, string]] : []),
    ["access", "People x workspaces"],
    ["people", "People"],
    ["org", "Organization permissions"],
    ["filters", "Data filters"],
    ["workspaces", "Workspaces"],
  ];
  return `<nav class="toc" aria-label="Sections">${links.map(([id, t]) => `<a href="#${id}">${t}</a>`).join("")}</nav>`;
}

export function renderReviewHtml(review: Review): string {
  return [...reviewHtmlChunks(review)].join("");
}

/** The page in pieces: its head, the embedded review a person at a time, its tail (html-json.ts). */
export function* reviewHtmlChunks(review: Review): Generator<string> {
  const title = `Access review: ${review.snapshot.organization}, ${review.snapshot.generatedAt}`;
  const head = pageHead({
    policy: CONTENT_SECURITY_POLICY,
    title,
    style: REVIEW_CSS,
    generator: `usersync ${review.snapshot.usersyncVersion}`,
  });
  yield `${head}<body>
<header class="top">
<h1>Access review: ${escapeHtml(review.snapshot.organization)}</h1>
<p>Who can see which workspace, with which rights and which rows, why, and what changed. Listed ${escapeHtml(review.snapshot.generatedAt)}.</p>
</header>
${nav(review)}
<noscript><p class="noscript">The tables of this page are built by its own inline script, which is off: the CSV and JSON forms of the review hold the same rows.</p></noscript>
<main>
<section id="summary" aria-labelledby="summary-h"><h2 id="summary-h">Summary</h2>
<div class="cards">${summaryCards(review.summary)}</div>
${facts(review)}
</section>
${sections(review)}
</main>
<script type="application/json" id="review-data">`;
  yield* jsonForScriptChunks(review);
  yield `</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
