/**
 * The campaign's decision page (docs/audits.md, "Deciding"): one self-contained file,
 * opened from disk, no server. A reviewer picks their name and sees their rows ("my rows"), with
 * keep / revoke / change buttons and a comment on each, and downloads a decisions file for
 * `campaign decide`. Like the review's page it loads nothing (inline style and script, allowed by
 * hash in its Content-Security-Policy) and builds its rows with textContent only. A large
 * campaign's pages are one reviewer's rows each, in parts (pages.ts), with the same script.
 */
import type { Campaign } from "../../review/campaign/types.js";
import { cspHash, escapeHtml, pageHead } from "../html-page.js";
import { jsonForScriptChunks } from "../review/html.js";
import { DECISION_SCRIPT } from "./html-script.js";

export const DECISION_CSS = `body{font:14px system-ui,sans-serif;margin:1.5rem;color:#111}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #ddd;padding:.35rem;text-align:left;vertical-align:top}
button{margin-right:.25rem;padding:.2rem .6rem;border:1px solid #888;background:#fff;border-radius:4px;cursor:pointer}
button[aria-pressed=true]{background:#1d4ed8;color:#fff}button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #f59e0b}
tr[data-decision=revoke] td{background:#fee2e2}tr[data-decision=keep] td{background:#ecfdf5}tr[data-decision=change] td{background:#fef9c3}
.comment{width:100%;margin-top:.3rem}.bar{display:flex;gap:1rem;align-items:center;margin:1rem 0}fieldset{border:0;padding:0;margin:.3rem 0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dt{color:#555}`;

const CSP = [
  "default-src 'none'",
  `style-src ${cspHash(DECISION_CSS)}`,
  `script-src ${cspHash(DECISION_SCRIPT)}`,
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

/** The campaign's facts every page shows: its organization, snapshot, dates. */
export function campaignFacts(campaign: Campaign): Array<[string, string]> {
  const s = campaign.snapshot;
  return [
    ["Organization", s.organization],
    ["Snapshot", `${s.generatedAt} (${s.digest})`],
    ["Opened", campaign.openedAt],
    ["Due", campaign.due ?? "not set"],
  ];
}

export const factList = (facts: Array<[string, string]>): string =>
  `<dl>${facts.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join("")}</dl>`;

export function renderDecisionPage(campaign: Campaign): string {
  return [...decisionPageChunks(campaign)].join("");
}

/** The same page in pieces, the campaign's data row by row: a large campaign is never one string. */
export function* decisionPageChunks(campaign: Campaign): Generator<string> {
  const facts = campaignFacts(campaign);
  facts.push(["Rows", `${campaign.rows.length} (${campaign.unassigned.length} without a reviewer)`]);
  yield* pageChunks({ title: campaign.snapshot.organization, facts, data: campaign });
}

/**
 * A decision page: its title, facts and links (`nav`, HTML), and the data its script reads (a
 * campaign, or a reviewer's part of one with its `page`), written row by row.
 */
export function* pageChunks(o: {
  title: string;
  facts: Array<[string, string]>;
  nav?: string;
  data: unknown;
}): Generator<string> {
  const title = `Access review decisions: ${o.title}`;
  yield `${pageHead({ policy: CSP, title, style: DECISION_CSS })}<body>
<h1>Access review decisions: ${escapeHtml(o.title)}</h1>
${o.nav ?? ""}${factList(o.facts)}
<div class="bar"><label>Reviewer <select id="reviewer"><option value="">choose your name</option></select></label>
<span id="count" role="status" aria-live="polite"></span>
<button type="button" id="download">Download decisions</button></div>
<p id="empty">Choose your name to see the rows assigned to you. Your decisions stay in this browser until you download them; send the downloaded file to the person running the campaign (usersync campaign decide).</p>
<table><caption>My rows</caption><thead><tr><th scope="col">person</th><th scope="col">name</th><th scope="col">workspace</th><th scope="col">permissions</th><th scope="col">reason</th><th scope="col">status</th><th scope="col">decision</th></tr></thead>
<tbody id="rows"></tbody></table>
<script type="application/json" id="campaign-data">`;
  yield* jsonForScriptChunks(o.data);
  yield `</script>
<script>${DECISION_SCRIPT}</script>
</body></html>
`;
}
