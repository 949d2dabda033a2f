/** The access review page as text (no browser): escaping, the embedded JSON, the CSP's hashes, determinism. */
import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import { escapeHtml } from "../../src/report/html-page.js";
import { jsonForScript, renderReviewHtml } from "../../src/report/review/html.js";
import { aReview, HOSTILE_MAQL, HOSTILE_NAME } from "./review-fixture.js";

const sha = (s: string): string => `'sha256-${createHash("sha256").update(s, "utf8").digest("base64")}'`;

describe("the access review page as text", () => {
  test("embedded JSON cannot end its script element, and reads back unchanged", () => {
    const value = { name: HOSTILE_NAME, maql: HOSTILE_MAQL, odd: "a\u2028b\u2029c<!--d-->&e" };
    const text = jsonForScript(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });

  test("header text is escaped", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    const html = renderReviewHtml(aReview());
    expect(html).toContain("<h1>Access review: acme &lt;prod&gt;</h1>");
    expect(html.match(/<script\b/g)).toHaveLength(2);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
  });

  test("the CSP allows exactly the inline style and script, by hash, and nothing else", () => {
    const html = renderReviewHtml(aReview());
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1]!;
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    expect(csp.split("; ")).toEqual([
      "default-src 'none'",
      `style-src ${sha(style)}`,
      `script-src ${sha(script)}`,
      "img-src data:",
      "base-uri 'none'",
      "form-action 'none'",
    ]);
  });

  test("the same review gives the same bytes", () => {
    expect(renderReviewHtml(aReview({ withChanges: true }))).toBe(
      renderReviewHtml(aReview({ withChanges: true })),
    );
  });
});
