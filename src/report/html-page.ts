/**
 * What usersync's self-contained HTML pages share (the plan's page, the access review's page,
 * the campaign's decision page): escaping, the hash a Content-Security-Policy allows an inline
 * style or script by, the page's head, and the summary's count cards. A page loads nothing: its
 * policy allows only its own inline style (and script) by hash.
 */
import { createHash } from "node:crypto";
import { num } from "./summary-lines.js";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text for HTML content and quoted attributes. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** A Content-Security-Policy source allowing one inline style or script: `'sha256-…'`. */
export const cspHash = (text: string): string =>
  `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/** From `<!doctype html>` to `</head>`, a line each: the policy, the viewport, the title, the style. */
export function pageHead(o: { policy: string; title: string; style: string; generator?: string }): string {
  const generator =
    o.generator === undefined ? "" : `<meta name="generator" content="${escapeHtml(o.generator)}">\n`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${o.policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
${generator}<title>${escapeHtml(o.title)}</title>
<style>${o.style}</style>
</head>
`;
}

/** One count of the summary; an alert card turns red when its count is above zero. */
export function card(n: number, label: string, alert = false): string {
  return `<div class="card${alert && n > 0 ? " alert" : ""}"><span class="n">${num(n)}</span><span class="l">${escapeHtml(label)}</span></div>`;
}
