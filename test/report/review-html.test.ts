/**
 * The access review's HTML page in a real headless Chromium (test/helpers/chromium.ts), opened
 * from a file as a reviewer would: it loads with no console error and asks for nothing, filters
 * and sorting change the rows as they should, a row unfolds to its reason chain (by mouse and by
 * keyboard), hostile names and MAQL stay text, and a screenshot shows a page, not a blank one.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { renderReviewHtml } from "../../src/report/review/html.js";
import { openFile, startChromium, type Browser } from "../helpers/chromium.js";
import { decodePng, inkedPixels } from "../helpers/png.js";
import { skipWithout } from "../helpers/skips.js";
import {
  aDatedReview,
  aReview,
  DATED_REMOVAL,
  HOSTILE_MAQL,
  HOSTILE_NAME,
  LAST_CHANGE,
} from "./review-fixture.js";

const skip = skipWithout(["chromium"], { what: "the access review's HTML page", onCi: "run" });

describe.skipIf(skip)("the access review page in Chromium", { timeout: 90_000 }, () => {
  let browser: Browser;
  let dir: string;
  const write = (name: string, html: string): string => {
    const file = join(dir, name);
    writeFileSync(file, html);
    return file;
  };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "usersync-review-html-"));
    browser = await startChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The page's own globals, for functions that run in it (the tests are typed without the DOM). */
  type InPage = { document: { querySelector(s: string): { getAttribute(n: string): string | null } | null } };
  // A function, not a string: the page's CSP forbids eval, which string predicates need.
  const waitRows = (page: Page, table: string, n: number) =>
    page.waitForFunction(
      ([t, want]) =>
        (globalThis as unknown as InPage).document.querySelector(`#${t}-table`)?.getAttribute("data-rows") ===
        want,
      [table, String(n)] as const,
    );
  const rows = async (page: Page, table: string): Promise<number> =>
    Number(await page.getAttribute(`#${table}-table`, "data-rows"));

  test("loads from a file with no console error, asks for nothing, and every table is filled", async () => {
    const { page, errors, requests } = await openFile(
      browser,
      write("review.html", renderReviewHtml(aReview({ withChanges: true }))),
    );
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    expect(await page.getAttribute("body", "data-ready")).toBe("true");
    expect(await page.title()).toBe("Access review: acme <prod>, 2026-11-27T20:00:00.000Z");
    expect({
      findings: await rows(page, "findings"),
      changes: await rows(page, "changes"),
      access: await rows(page, "access"),
      people: await rows(page, "people"),
      org: await rows(page, "org"),
      filters: await rows(page, "filters"),
      workspaces: await rows(page, "workspaces"),
    }).toEqual({ findings: 3, changes: 2, access: 5, people: 5, org: 1, filters: 3, workspaces: 4 });
    // Findings come first on the page.
    const order = await page.$$eval("main > section", (s) => s.map((x) => x.id));
    expect(order).toEqual([
      "summary",
      "findings",
      "changes",
      "access",
      "people",
      "org",
      "filters",
      "workspaces",
    ]);
    await page.close();
  });

  test("without --since there is no changes section", async () => {
    const { page, errors } = await openFile(browser, write("no-changes.html", renderReviewHtml(aReview())));
    expect(errors).toEqual([]);
    expect(await page.$("#changes")).toBeNull();
    await page.close();
  });

  test("hostile names and MAQL are shown as text and never run", async () => {
    const html = renderReviewHtml(aReview());
    expect(html).not.toContain("<script>window.__pwned");
    expect(html).not.toContain("<img src=x");
    const { page, errors } = await openFile(browser, write("hostile.html", html));
    expect(errors).toEqual([]);
    expect(await page.evaluate("window.__pwned")).toBeUndefined();
    await page.fill("#people-q", "evil@example.com");
    await waitRows(page, "people", 1);
    expect(await page.textContent("#people-table tbody .name")).toBe(HOSTILE_NAME);
    expect(await page.$$eval("#filters-table code.maql", (c) => c.map((x) => x.textContent))).toContain(
      HOSTILE_MAQL,
    );
    await page.close();
  });

  test("filters: typing, a select and a check box each narrow the rows as expected", async () => {
    const { page } = await openFile(browser, write("filters.html", renderReviewHtml(aReview())));
    await page.fill("#access-q", "sales-emea");
    await waitRows(page, "access", 2);
    expect(await page.textContent("#access-count")).toBe("2 of 5 rows match");
    await page.fill("#access-q", "");
    await waitRows(page, "access", 5);
    await page.selectOption("#access-status", "revoked");
    expect(await rows(page, "access")).toBe(1);
    expect(await page.textContent("#access-table tbody .name")).toBe("Lee Vaver");
    await page.selectOption("#access-status", "");
    await page.check("#access-manage");
    expect(await rows(page, "access")).toBe(1);
    await page.uncheck("#access-manage");
    await page.selectOption("#access-filter", "unfiltered");
    expect(await rows(page, "access")).toBe(1);
    await page.selectOption("#access-filter", "handmade");
    expect(await rows(page, "access")).toBe(2);
    await page.selectOption("#filters-managed", "hand");
    expect(await rows(page, "filters")).toBe(2);
    await page.selectOption("#findings-kind", "handMadeDirectGrant");
    expect(await rows(page, "findings")).toBe(1);
    await page.fill("#findings-q", "no such person");
    await waitRows(page, "findings", 0);
    expect(await page.textContent("#findings-table tbody")).toBe("No row matches the filters.");
    await page.close();
  });

  test("sorting: a header click sorts ascending, a second descending, and says so to assistive technology", async () => {
    const { page } = await openFile(browser, write("sort.html", renderReviewHtml(aReview())));
    const firstWorkspace = () => page.textContent("#access-table tbody tr:first-child td:nth-child(4) code");
    await page.click('#access-table th[data-key="workspace"] button');
    expect(await page.getAttribute('#access-table th[data-key="workspace"]', "aria-sort")).toBe("ascending");
    expect(await firstWorkspace()).toBe("finance");
    await page.click('#access-table th[data-key="workspace"] button');
    expect(await page.getAttribute('#access-table th[data-key="workspace"]', "aria-sort")).toBe("descending");
    expect(await firstWorkspace()).toBe("sales-emea");
    // By keyboard: focus the People table's Workspaces header and press Enter.
    await page.focus('#people-table th[data-key="workspaces"] button');
    await page.keyboard.press("Enter");
    const counts = await page.$$eval("#people-table tbody tr td.num", (c) =>
      c.map((x) => Number(x.textContent)),
    );
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(counts[0]).toBe(0);
    await page.close();
  });

  test("a row unfolds to its reason chain: groups with parents, the hierarchy, the filters' MAQL", async () => {
    const { page } = await openFile(browser, write("expand.html", renderReviewHtml(aReview())));
    await page.fill("#access-q", "jane sales-emea");
    await waitRows(page, "access", 1);
    const button = "#access-table tbody tr:first-child button.expand";
    expect(await page.getAttribute(button, "aria-expanded")).toBe("false");
    await page.focus(button);
    await page.keyboard.press("Enter");
    expect(await page.getAttribute(button, "aria-expanded")).toBe("true");
    const controls = await page.getAttribute(button, "aria-controls");
    const detail = (await page.textContent(`#${controls}`)) ?? "";
    expect(detail).toContain("Why Jane Doe reaches sales-emea");
    expect(detail).toMatch(/member of sales-emea, which holds ANALYZE, VIEW on sales-emea/);
    expect(detail).toMatch(
      /group sales \(via sales-emea → sales\) holds hierarchy permissions on sales → sales-emea, giving VIEW/,
    );
    expect(detail).toContain('{label/region} = "EMEA"');
    expect(detail).toContain("on parent workspace sales");
    expect(detail).toContain(
      "Changed after the review of 2026-08-01T06:00:00.000Z and by the review of 2026-11-01T06:00:00.000Z",
    );
    expect(await page.textContent("#access-table tbody tr:first-child")).toContain(LAST_CHANGE);
    await page.keyboard.press("Space");
    expect(await page.getAttribute(button, "aria-expanded")).toBe("false");
    expect(await page.$(`#${controls}`)).toBeNull();
    await page.close();
  });

  test("a removal usersync made shows when, by which run, and when the leaver left the source", async () => {
    const review = aDatedReview();
    const { removedAt: REMOVED, runId: RUN, goneSince: GONE } = DATED_REMOVAL;
    const { page, errors } = await openFile(browser, write("removals.html", renderReviewHtml(review)));
    expect(errors).toEqual([]);
    await waitRows(page, "changes", 3);
    const headers = await page.$$eval("#changes-table thead th", (h) => h.map((x) => x.textContent?.trim()));
    expect(headers).toContain("Removed by usersync");
    expect(headers).toContain("Left the source");
    await page.fill("#changes-q", RUN);
    await waitRows(page, "changes", 1);
    const cells = await page.$$eval("#changes-table tbody tr:first-child > *", (c) =>
      c.map((x) => x.textContent),
    );
    expect(cells[headers.indexOf("Removed by usersync")]).toBe(`${REMOVED}run ${RUN}`);
    expect(cells[headers.indexOf("Left the source")]).toBe(GONE);
    // The leaver's own row says when they left the source.
    await page.fill("#people-q", "leaver@example.com");
    await waitRows(page, "people", 1);
    await page.click("#people-table tbody tr:first-child button.expand");
    const controls = await page.getAttribute(
      "#people-table tbody tr:first-child button.expand",
      "aria-controls",
    );
    expect(await page.textContent(`#${controls}`)).toContain(`Left the source: ${GONE}`);
    await page.close();
  });

  test("a screenshot shows a page: many pixels differ from the background, where a blank page has none", async () => {
    const blank = await openFile(
      browser,
      write("blank.html", "<!doctype html><title>x</title><body></body>"),
    );
    const empty = inkedPixels(decodePng(await blank.page.screenshot({ fullPage: true })));
    await blank.page.close();
    expect(empty).toBe(0);
    const { page } = await openFile(
      browser,
      write("shot.html", renderReviewHtml(aReview({ withChanges: true }))),
    );
    await page.click("#access-table tbody tr:first-child button.expand");
    const png = await page.screenshot({ fullPage: true });
    if (process.env["USERSYNC_REVIEW_SCREENSHOT"])
      writeFileSync(process.env["USERSYNC_REVIEW_SCREENSHOT"], png);
    const shot = decodePng(png);
    expect(shot.width).toBe(1400);
    // The header band alone is ~1400 x 80; text, badges and table lines add far more.
    expect(inkedPixels(shot)).toBeGreaterThan(200_000);
    await page.close();
  });
});
