/**
 * The close-out as a person and an auditor read it (docs/audits.md, "Close-out"): JSON (the
 * evidence itself, docs/campaign.schema.json), CSV (one row per decision, with what became of
 * it), and a self-contained HTML page (no script; prints).
 */
import { csvLine } from "../../desired/csv-cell.js";
import type { CloseOut } from "../../review/campaign/close.js";
import { escapeHtml } from "../html-page.js";

export const CLOSEOUT_FORMATS = ["json", "csv", "html"] as const;

export const renderCloseOutJson = (c: CloseOut): string => `${JSON.stringify(c, null, 2)}\n`;

export const CLOSEOUT_COLUMNS = [
  "row_id",
  "email",
  "workspace",
  "permissions",
  "decision",
  "reviewer",
  "decided_at",
  "comment",
  "status",
  "carried_out",
  "after",
  "why",
] as const;

export function renderCloseOutCsv(c: CloseOut): string {
  const revoked = new Map(c.revocations.map((r) => [r.rowId, r] as const));
  const lines = [
    `# close-out of campaign ${c.campaign.id}; review ${c.review.digest}; review after ${c.reviewAfter.digest}; closed by ${c.signOff.closedBy} at ${c.signOff.closedAt}\r\n`,
    csvLine(CLOSEOUT_COLUMNS),
  ];
  for (const d of c.decisions) {
    const r = revoked.get(d.rowId);
    lines.push(
      csvLine([
        d.rowId,
        d.email ?? "",
        d.workspace ?? "(organization)",
        d.held.join(" "),
        r?.decision ?? d.decision,
        d.reviewer,
        d.decidedAt,
        d.comment ?? "",
        r === undefined ? "kept" : r.status,
        r?.carriedOut ?? "",
        r === undefined ? "" : r.after.join(" ") || "(gone)",
        r?.why ?? "",
      ]),
    );
  }
  return lines.join("");
}

const cell = (s: string): string => `<td>${escapeHtml(s)}</td>`;
const pct = (n: number, of: number): string => (of === 0 ? "100%" : `${Math.floor((n * 100) / of)}%`);

export function renderCloseOutHtml(c: CloseOut): string {
  const facts: Array<[string, string]> = [
    ["Campaign", c.campaign.id],
    ["Opened", c.campaign.openedAt],
    ["Due", c.campaign.due ?? "not set"],
    ["Review", `${c.review.listedAt} (${c.review.digest})`],
    ["Review after remediation", `${c.reviewAfter.listedAt} (${c.reviewAfter.digest})`],
    [
      "Coverage",
      `${c.coverage.decided} of ${c.coverage.rows} rows decided (${pct(c.coverage.decided, c.coverage.rows)})`,
    ],
    [
      "Revocations",
      `${c.summary.revocations}: ${c.summary.done} verified gone, ${c.summary.pending} pending`,
    ],
    ["Closed by", `${c.signOff.closedBy} at ${c.signOff.closedAt}`],
    ["Digest", c.signOff.digest ?? ""],
    ["Signature", c.signOff.signature ?? "not signed"],
  ];
  const reviewers = c.coverage.reviewers
    .map(
      (r) =>
        `<tr>${cell(r.email)}${cell(String(r.assigned))}${cell(String(r.decided))}${cell(pct(r.decided, r.assigned))}</tr>`,
    )
    .join("");
  const revocations = c.revocations
    .map(
      (r) =>
        `<tr>${[r.email ?? r.person, r.workspace ?? "(organization)", r.decision, r.reviewer, r.decidedAt, r.comment ?? "", r.status, r.carriedOut ?? "", r.after.join(" ") || "(gone)", r.why ?? ""].map(cell).join("")}</tr>`,
    )
    .join("");
  const inputs = c.signOff.inputs
    .map((i) => `<tr>${cell(i.role)}${cell(i.file)}${cell(i.sha256)}</tr>`)
    .join("");
  const decisions = c.decisions
    .map(
      (d) =>
        `<tr>${[d.email ?? d.rowId, d.workspace ?? "(organization)", d.held.join(" "), d.decision, d.reviewer, d.decidedAt, d.comment ?? ""].map(cell).join("")}</tr>`,
    )
    .join("");
  const head = (cols: string[]): string =>
    `<tr>${cols.map((x) => `<th scope="col">${escapeHtml(x)}</th>`).join("")}</tr>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>Access review close-out: ${escapeHtml(c.campaign.organization)}</title>
<style>body{font:14px system-ui,sans-serif;margin:1.5rem}table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dt{color:#555}</style>
</head><body>
<h1>Access review close-out: ${escapeHtml(c.campaign.organization)}</h1>
<dl>${facts.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join("")}</dl>
<h2>Coverage per reviewer</h2><table>${head(["reviewer", "rows assigned", "decided", "coverage"])}${reviewers}</table>
<h2>Revocations</h2><table>${head(["person", "workspace", "decision", "reviewer", "decided", "comment", "status", "carried out", "holds after", "why pending"])}${revocations}</table>
<h2>Decisions</h2><table>${head(["person", "workspace", "permissions", "decision", "reviewer", "decided", "comment"])}${decisions}</table>
<h2>Sign-off inputs</h2><table>${head(["input", "file", "sha256"])}${inputs}</table>
</body></html>
`;
}
