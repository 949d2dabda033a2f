/**
 * The campaign's decision page in a real headless Chromium, as a reviewer uses it: opened from a
 * file, they choose their name, see their rows, click keep / revoke / change with a comment,
 * reload (nothing is lost: the page keeps unsaved decisions in localStorage), and download the
 * decisions file that `campaign decide` reads. Hostile names stay text; the page asks for nothing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { renderDecisionPage } from "../../src/report/campaign/html.js";
import { openCampaign } from "../../src/review/campaign/open.js";
import { mergeDecisions } from "../../src/review/campaign/decisions.js";
import type { DecisionsFile } from "../../src/review/campaign/types.js";
import { toSnapshot } from "../../src/review/to-snapshot.js";
import { openFile, startChromium, type Browser } from "../helpers/chromium.js";
import { skipWithout } from "../helpers/skips.js";
import { aReview, HOSTILE_NAME } from "./review-fixture.js";

const skip = skipWithout(["chromium"], { what: "the campaign's decision page", onCi: "run" });

describe.skipIf(skip)("the decision page in Chromium", { timeout: 120_000 }, () => {
  let browser: Browser;
  let dir: string;
  const snapshot = toSnapshot(aReview());
  const campaign = openCampaign({
    snapshot,
    file: "review.json",
    sha256: "sha256:00",
    openedAt: "2027-01-01T00:00:00.000Z",
    due: "2027-01-15",
    rules: { workspaces: {}, groups: {}, organizations: {}, default: ["owner@acme.example"] },
  });
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "usersync-campaign-html-"));
    browser = await startChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a reviewer decides, reloads, and downloads the decisions file", async () => {
    const file = join(dir, "decide.html");
    writeFileSync(file, renderDecisionPage(campaign));
    const { page, errors, requests } = await openFile(browser, file);
    expect(errors).toEqual([]);
    expect(await page.locator("#rows tr").count()).toBe(0); // no name chosen: no rows
    await page.selectOption("#reviewer", "owner@acme.example");
    const rows = page.locator("#rows tr");
    expect(await rows.count()).toBe(campaign.rows.length);
    expect(await page.textContent("#count")).toBe(`0 of ${campaign.rows.length} row(s) decided`);
    const wide = campaign.rows.find((r) => r.permissions.length > 1)!;
    const [first, second] = campaign.rows.filter((r) => r !== wide) as [typeof wide, typeof wide];
    const at = (id: string) => page.locator(`#rows tr[data-row="${id}"]`);
    await at(first.rowId).locator("button[data-d=revoke]").click();
    await at(first.rowId).locator("input.comment").fill("left the team");
    await at(second.rowId).locator("button[data-d=keep]").click();
    // A change: the row's permissions to keep, one of them unticked.
    await at(wide.rowId).locator("button[data-d=change]").click();
    const keep = at(wide.rowId).locator(".change input");
    expect(await keep.count()).toBe(wide.permissions.length);
    for (let i = 0; i < wide.permissions.length; i++)
      if (!(await keep.nth(i).isChecked())) await keep.nth(i).check();
    await keep.nth(0).uncheck();
    expect(await page.textContent("#count")).toBe(`3 of ${campaign.rows.length} row(s) decided`);

    await page.reload();
    await page.waitForSelector("body[data-ready=true]");
    expect(await at(first.rowId).locator("button[data-d=revoke]").getAttribute("aria-pressed")).toBe("true");
    expect(await at(first.rowId).locator("input.comment").inputValue()).toBe("left the team");
    expect(await page.textContent("#count")).toBe(`3 of ${campaign.rows.length} row(s) decided`);

    const download = page.waitForEvent("download");
    await page.click("#download");
    const saved = join(dir, "decisions.json");
    await (await download).saveAs(saved);
    const decisions = JSON.parse(readFileSync(saved, "utf8")) as DecisionsFile;
    expect(decisions).toMatchObject({
      kind: "usersync-campaign-decisions",
      campaign: campaign.id,
      digest: snapshot.header.digest,
    });
    const order = new Map(campaign.rows.map((r, i) => [r.rowId, i] as const));
    const expected = [
      [first.rowId, "revoke", "owner@acme.example", "left the team", undefined],
      [second.rowId, "keep", "owner@acme.example", undefined, undefined],
      [wide.rowId, "change", "owner@acme.example", undefined, wide.permissions.slice(1)],
    ].sort((a, b) => order.get(a[0] as string)! - order.get(b[0] as string)!);
    expect(
      decisions.decisions.map((d) => [d.rowId, d.decision, d.reviewer, d.comment, d.permissions]),
    ).toEqual(expected);
    expect(
      mergeDecisions(campaign, [], [{ file: "decisions.json", decisions: decisions.decisions }]).problems,
    ).toEqual([]);
    expect(requests.filter((r) => !r.startsWith("data:"))).toEqual([]);
    expect(errors).toEqual([]);
    expect(
      await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned),
    ).toBeUndefined();
    expect(await page.locator("#rows").textContent()).toContain(HOSTILE_NAME.slice(0, 20));
  });
});
