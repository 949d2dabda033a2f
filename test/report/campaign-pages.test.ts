/**
 * The campaign's decision pages as a folder (`campaign open --html-dir`, docs/audits.md,
 * "Deciding") in a real headless Chromium: the index lists every reviewer with their count and
 * links; each reviewer's pages hold exactly the rows the assignment rules give them, at most
 * `--html-rows` a page, with links between them; decisions made on a page download as the file
 * `campaign decide` reads. The rows expected come from the rules as docs/audits.md states them
 * ("Opening"), worked out by hand for the fixture below, not from the code.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Page } from "playwright-core";
import { openCampaign } from "../../src/review/campaign/open.js";
import { mergeDecisions } from "../../src/review/campaign/decisions.js";
import { toSnapshot } from "../../src/review/to-snapshot.js";
import { checkPagesFolder, writePagesFolder } from "../../src/cli/campaign/pages.js";
import { decisionsFromJson } from "../../src/cli/campaign/files.js";
import { refuseLargePage } from "../../src/cli/campaign/open.js";
import { ConfigError } from "../../src/errors.js";
import { openFile, startChromium, type Browser } from "../helpers/chromium.js";
import { skipWithout } from "../helpers/skips.js";
import { aReview, HOSTILE_NAME } from "./review-fixture.js";

const SALES = "sales-lead@acme.example";
const EMEA = "emea-lead@acme.example";
const OWNER = "owner@acme.example";

/**
 * The fixture's rows (review-fixture.ts) and who reviews them under these rules: a row goes to
 * the reviewers of its workspace (`sales*`: sales, sales-emea) and of the groups it is reached
 * through (`sales-emea`) together; a row neither names goes to the default.
 */
const RULES = {
  workspaces: { "sales*": [SALES] },
  groups: { "sales-emea": [EMEA] },
  organizations: {},
  default: [OWNER],
};
const EXPECTED: Record<string, string[]> = {
  // jane|sales-emea: its workspace and its group; evil|sales-emea the same; leaver|sales: its workspace.
  [SALES]: ["evil|sales-emea", "jane|sales-emea", "leaver|sales"],
  [EMEA]: ["evil|sales-emea", "jane|sales-emea"],
  // jane's hand-made grant on finance, ops's root workspace and organization MANAGE: no rule names them.
  [OWNER]: ["jane|finance", "root-admin|organization", "root-admin|root"],
};

const skip = skipWithout(["chromium"], { what: "the campaign's decision pages", onCi: "run" });

describe("the decision pages' folder", () => {
  const campaign = () =>
    openCampaign({
      snapshot: toSnapshot(aReview()),
      file: "review.json",
      sha256: "sha256:00",
      openedAt: "2027-01-01T00:00:00.000Z",
      due: "2027-01-15",
      rules: RULES,
    });
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "usersync-campaign-pages-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("same campaign, same bytes; a folder written before is rewritten without its stale pages, any other refused", async () => {
    const [a, b] = [join(dir, "a"), join(dir, "b")];
    await writePagesFolder(a, campaign(), 2);
    await writePagesFolder(b, campaign(), 2);
    const files = readdirSync(a).sort();
    expect(files).toEqual([
      "emea-lead@acme.example.html",
      "index.html",
      "owner@acme.example.2.html",
      "owner@acme.example.html",
      "sales-lead@acme.example.2.html",
      "sales-lead@acme.example.html",
    ]);
    expect(readdirSync(b).sort()).toEqual(files);
    for (const f of files) expect(readFileSync(join(b, f))).toEqual(readFileSync(join(a, f)));
    // Written again with bigger pages: the second pages are gone, not left behind.
    await checkPagesFolder("--html-dir", a);
    expect(await writePagesFolder(a, campaign(), 10)).toBe(4);
    expect(readdirSync(a).sort()).toEqual([
      "emea-lead@acme.example.html",
      "index.html",
      "owner@acme.example.html",
      "sales-lead@acme.example.html",
    ]);
    expect(readdirSync(dir).sort()).toEqual(["a", "b"]); // nothing left beside it
    writeFileSync(join(a, "notes.txt"), "mine");
    await expect(checkPagesFolder("--html-dir", a)).rejects.toThrow(ConfigError);
    await expect(checkPagesFolder("--html-dir", join(a, "notes.txt"))).rejects.toThrow(/is a file/);
  });

  test("one page is for a small campaign: past 20,000 rows --html is refused for --html-dir", () => {
    expect(() => refuseLargePage("c.html", 20_000, false)).not.toThrow();
    expect(() => refuseLargePage("c.html", 20_001, false)).toThrow(
      /--html c.html: the campaign has 20001 rows, too many for one page .* Give --html-dir DIR instead/,
    );
    expect(() => refuseLargePage("c.html", 20_001, true)).toThrow(/Leave out --html: --html-dir writes/);
  });

  describe.skipIf(skip)("in Chromium", { timeout: 120_000 }, () => {
    let browser: Browser;
    const pages = () => join(dir, "pages");
    const c = campaign();
    beforeAll(async () => {
      await writePagesFolder(pages(), c, 2);
      browser = await startChromium();
    }, 60_000);
    afterAll(async () => browser?.close());

    const shownRows = (page: Page) =>
      page.locator("#rows tr").evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-row")));

    test("the index lists each reviewer with their count; their pages hold exactly their rows", async () => {
      const { page, errors, requests } = await openFile(browser, join(pages(), "index.html"), {
        ready: false,
      });
      const listed = await page
        .locator("tbody tr")
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll("td")].slice(0, 2).map((td) => td.textContent)),
        );
      expect(listed).toEqual([
        [EMEA, "2"],
        [OWNER, "3"],
        [SALES, "3"],
      ]);
      // A link per page: at 2 rows a page, 3 rows are 2 pages.
      for (const [reviewer, n] of [
        [EMEA, 1],
        [OWNER, 2],
        [SALES, 2],
      ] as const)
        expect(await page.getByRole("link", { name: `${reviewer}, page`, exact: false }).count()).toBe(n);
      for (const reviewer of [EMEA, OWNER, SALES]) {
        // From the index, by the link a person clicks, then page after page.
        await page.goto(pathToFileURL(join(pages(), "index.html")).href);
        await page.getByRole("link", { name: reviewer, exact: true }).click();
        await page.waitForSelector("body[data-ready=true]");
        const seen: string[] = [];
        for (;;) {
          expect(await page.inputValue("#reviewer")).toBe(reviewer);
          const rows = await shownRows(page);
          expect(rows.length).toBeLessThanOrEqual(2);
          expect(rows.length).toBeGreaterThan(0);
          seen.push(...(rows as string[]));
          const next = page.getByRole("link", { name: "Next page" });
          if ((await next.count()) === 0) break;
          await next.click();
          await page.waitForSelector("body[data-ready=true]");
        }
        expect(seen.sort()).toEqual(EXPECTED[reviewer]);
        await page.getByRole("link", { name: "All reviewers" }).click();
        expect(page.url()).toMatch(/\/index\.html$/);
      }
      expect(errors).toEqual([]);
      expect(requests.filter((r) => !r.startsWith("file:"))).toEqual([]);
      await page.close();
    });

    test("decisions made on each page download as files campaign decide merges", async () => {
      const decided: Array<{ file: string; value: unknown }> = [];
      for (const name of ["sales-lead@acme.example.html", "sales-lead@acme.example.2.html"]) {
        const { page, errors, requests } = await openFile(browser, join(pages(), name));
        const rows = (await shownRows(page)) as string[];
        for (const id of rows) {
          const tr = page.locator(`#rows tr[data-row="${id}"]`);
          await tr.locator(`button[data-d=${id === "leaver|sales" ? "revoke" : "keep"}]`).click();
          if (id === "leaver|sales") await tr.locator("input.comment").fill("left in September");
        }
        expect(await page.textContent("#count")).toBe(
          `${rows.length} of ${rows.length} row(s) decided on this page`,
        );
        await page.reload();
        await page.waitForSelector("body[data-ready=true]");
        expect(await page.textContent("#count")).toBe(
          `${rows.length} of ${rows.length} row(s) decided on this page`,
        );
        const download = page.waitForEvent("download");
        await page.click("#download");
        const got = await download;
        const file = join(dir, got.suggestedFilename());
        await got.saveAs(file);
        decided.push({ file, value: JSON.parse(readFileSync(file, "utf8")) as unknown });
        expect(errors).toEqual([]);
        expect(requests.filter((r) => !r.startsWith("data:"))).toEqual([]);
        expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
        if (rows.includes("evil|sales-emea"))
          expect(await page.locator("#rows").textContent()).toContain(HOSTILE_NAME.slice(0, 20));
        await page.close();
      }
      expect(decided.map((d) => d.file.split("/").pop())).toEqual([
        "decisions-sales-lead_acme.example-1.json",
        "decisions-sales-lead_acme.example-2.json",
      ]);
      // As campaign decide reads them (cli/campaign/files.ts), then merges them.
      const inputs = decided.map((d) => decisionsFromJson(d.file, d.value, c));
      const merged = mergeDecisions(c, [], inputs);
      expect(merged.problems).toEqual([]);
      expect(merged.decisions.map((d) => [d.rowId, d.decision, d.reviewer, d.comment]).sort()).toEqual([
        ["evil|sales-emea", "keep", SALES, undefined],
        ["jane|sales-emea", "keep", SALES, undefined],
        ["leaver|sales", "revoke", SALES, "left in September"],
      ]);
    });
  });
});
