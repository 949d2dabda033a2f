/**
 * The manager's dry run (issue 49): `plan --format html` is one self-contained page naming the
 * organization, with the plan person by person (name, department, workspaces gained and lost,
 * start and end dates); Markdown has the same people table. The page opens in a real headless
 * Chromium from a file, with no console error and no request.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { plan } from "../../src/plan/index.js";
import { peopleView, renderPlan } from "../../src/report/index.js";
import { openFile, startChromium, type Browser } from "../helpers/chromium.js";
import { skipWithout } from "../helpers/skips.js";
import {
  aDesiredGroup,
  aDesiredState,
  aMapping,
  aPolicy,
  aUser,
  anActualState,
  anIdpUser,
} from "../plan/builders.js";

const sales = aDesiredGroup({
  id: "sales",
  name: "Sales",
  workspaces: [{ workspace: "sales-ws", permissions: ["VIEW"], hierarchy: [] }],
});
const leaverIdp = anIdpUser({ email: "old@acme.example", displayName: "Olga Old" });
const desired = aDesiredState(
  [
    aUser({ email: "lukasz@acme.example", displayName: "Łukasz <b>Wiśniewski</b>", groups: ["sales"] }),
    aUser({
      email: "later@acme.example",
      displayName: "Later Starter",
      groups: ["sales"],
      startDate: "2026-12-07",
    }),
    aUser({ email: "old@acme.example", state: "absent" }),
  ],
  [sales],
);
const actual = anActualState({
  idpUsers: [leaverIdp],
  mappings: [
    aMapping({
      id: "old",
      authenticationId: leaverIdp.authenticationId,
      email: leaverIdp.email,
      groups: ["sales"],
    }),
  ],
  groups: [{ id: "sales", name: "Sales", parents: [] }],
});
const made = plan({ desired, actual, policy: aPolicy(), profile: "v1", today: "2026-12-01" });
const people = peopleView(made, desired, actual);
const ORG = "https://analytics.acme.example";

describe("the plan person by person", () => {
  test("who is new, who leaves, who starts later; workspaces reached through a group count", () => {
    expect(people.map((p) => [p.email, p.change, p.workspacesGained, p.workspacesLost, p.startDate])).toEqual(
      [
        ["later@acme.example", "starts later", [], [], "2026-12-07"],
        ["lukasz@acme.example", "new", ["sales-ws"], [], undefined],
        // deletions: revoke takes a leaver out of the groups usersync manages: sales's workspace goes.
        ["old@acme.example", "leaves", [], ["sales-ws"], undefined],
      ],
    );
  });

  test("Markdown names the organization and has the people table", () => {
    const md = renderPlan(made, {
      format: "markdown",
      dryRun: true,
      color: false,
      organization: ORG,
      people,
    });
    // Each header line is a paragraph of its own: Markdown joins adjacent lines into one.
    expect(md).toContain(`\n\nOrganization: ${ORG}\n\nMode incremental · profile v1 ·`);
    expect(md).toContain("| name | email | department | change | workspaces gained |");
    expect(md).toMatch(/\| Łukasz <b>Wiśniewski<\/b> \| lukasz@acme\.example \| sales \| new \| sales-ws \|/);
  });

  test("text names the organization just above its last line, the plan's verdict", () => {
    const text = renderPlan(made, { format: "text", dryRun: true, color: false, organization: ORG });
    const lines = text.trimEnd().split("\n");
    expect(lines.at(-2)).toBe(`Organization: ${ORG}`);
    expect(lines.at(-1)).toMatch(/^Plan: /);
  });
});

const skip = skipWithout(["chromium"], { what: "the plan's HTML page", onCi: "run" });

describe.skipIf(skip)("plan --format html in Chromium", { timeout: 90_000 }, () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "usersync-plan-html-"));
    browser = await startChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("opens offline with no error; names the organization; names stay text", async () => {
    const html = renderPlan(made, { format: "html", dryRun: true, color: false, organization: ORG, people });
    const file = join(dir, "plan.html");
    writeFileSync(file, html);
    const { page, errors, requests } = await openFile(browser, file, { ready: false });
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    expect(await page.title()).toBe(`usersync plan: ${ORG}`);
    const body = await page.locator("body").innerText();
    expect(body).toContain("DRY RUN — nothing will be changed");
    expect(body).toContain("Łukasz <b>Wiśniewski</b>");
    expect(await page.locator("#people tbody tr").count()).toBe(3);
    expect(await page.locator("b").count()).toBe(0);
    expect(body).toContain("Starting later");
  });
});
