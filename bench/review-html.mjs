// Figure 17, the access review's HTML page (issue 39, item 7): a review of 10,000 people in 200
// groups (two each, one of them under a parent group) over 100 workspaces in a three-level
// hierarchy (10 roots, 3 children each, 2 grandchildren each: 100), with 20,000 data filters (one
// own filter on each of two workspaces of every person), rendered by `renderReviewHtml`, then
// opened from a file in headless Chromium (Debian's /usr/bin/chromium through playwright-core) until
// the page's script has built every table. Printed: the page's size, the render time in Node, and
// the load time in Chromium (navigation start to the tables built, as the page measures it, and as
// the test sees it), plus the time one filter keystroke takes to redraw. Median of 3 loads, each in
// a fresh page. Smaller: BENCH_REVIEW_PEOPLE=1000 node bench/review-html.mjs
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { fromDist, median, printTable, round, writeResult } from "./lib.mjs";

const PEOPLE = Number(process.env.BENCH_REVIEW_PEOPLE ?? 10_000);
const GROUPS = 200;
const RUNS = 3;
const { renderReviewHtml } = await fromDist("report/review/html.js");

/** 100 workspaces: r0..r9, each with 3 children, each child with 2 grandchildren. */
function workspaces() {
  const out = [];
  for (let r = 0; r < 10; r++) {
    const root = `r${r}`;
    out.push({ id: root, name: `Region ${r}`, path: [root] });
    for (let c = 0; c < 3; c++) {
      const child = `${root}-c${c}`;
      out.push({ id: child, name: `Team ${r}.${c}`, parent: root, path: [root, child] });
      for (let g = 0; g < 2; g++) {
        const leaf = `${child}-g${g}`;
        out.push({ id: leaf, name: `Desk ${r}.${c}.${g}`, parent: child, path: [root, child, leaf] });
      }
    }
  }
  return out.map((w) => ({ ...w, filterCount: 0, peopleWithAccess: 0 }));
}

const group = (id) => ({ type: "userGroup", id });
const reason = (kind, holder, chain, on, wsChain, permissions) => ({
  kind,
  holder,
  groupChain: chain,
  grantedOn: on,
  workspaceChain: wsChain,
  permissions,
  managed: true,
  text: kind === "direct" ? "direct" : `group ${chain.join(" -> ")}`,
});

function review() {
  const ws = workspaces();
  const byId = new Map(ws.map((w) => [w.id, w]));
  const people = [];
  let filters = 0;
  let rows = 0;
  for (let i = 0; i < PEOPLE; i++) {
    const id = `p${String(i).padStart(5, "0")}`;
    const g1 = `g${i % GROUPS}`;
    const parent = `g${(i % GROUPS) - ((i % GROUPS) % 10)}`;
    const team = ws[(i * 7) % ws.length];
    const root = byId.get(team.path[0]);
    const access = [];
    const add = (w, reasons) => {
      const f = {
        id: `f-${id}-${w.id}`,
        via: "own",
        holder: { type: "user", id },
        groupChain: [],
        workspace: w.id,
        fromParent: false,
        maql: `{label/region} IN ("R${i % 50}", "R${(i + 1) % 50}")`,
        managed: i % 20 !== 0,
      };
      filters += 1;
      w.filterCount += 1;
      w.peopleWithAccess += 1;
      const permissions = [...new Set(reasons.flatMap((r) => r.permissions))].sort();
      access.push({
        workspace: w.id,
        workspaceName: w.name,
        permissions,
        manage: false,
        reasons,
        filters: [f],
        unfiltered: false,
      });
    };
    add(team, [reason("group", group(g1), [g1], team.id, [], ["ANALYZE", "VIEW"])]);
    if (root.id !== team.id)
      add(root, [reason("hierarchy", group(parent), [g1, parent], root.id, [root.id], ["VIEW"])]);
    else add(ws[(i * 13 + 5) % ws.length], [reason("direct", { type: "user", id }, [], "x", [], ["VIEW"])]);
    rows += access.length;
    people.push({
      key: `user/${id}`,
      id,
      email: `${id}@example.com`,
      displayName: `Person ${i}`,
      login: i % 97 === 0 ? "revoked" : "active",
      status: i % 97 === 0 ? "revoked" : "active",
      inScope: true,
      agreement: i % 31 === 0 ? "drifted" : "inLine",
      drift: i % 31 === 0 ? ["gains VIEW on r0"] : [],
      desiredState: "present",
      groups: [g1],
      allGroups: [...new Set([g1, parent])].sort(),
      organizationPermissions: [],
      organizationReasons: [],
      privileged: false,
      access,
    });
  }
  const findings = people
    .filter((p) => p.status === "revoked")
    .map((p) => ({
      kind: "revokedWithAccess",
      severity: "high",
      person: p.key,
      email: p.email,
      detail: "login revoked, still holds access",
    }));
  return {
    formatVersion: 1,
    kind: "usersync-access-review",
    snapshot: {
      generatedAt: "2026-11-27T22:00:00.000Z",
      organization: "bench",
      baseUrl: "http://127.0.0.1",
      usersyncVersion: "0.1.0",
      digest: "sha256:0",
    },
    summary: {
      people: PEOPLE,
      byStatus: {},
      byAgreement: {},
      workspaces: ws.length,
      groups: GROUPS,
      accessRows: rows,
      privilegedPeople: 0,
      unfilteredRows: 0,
      filters,
      findings: findings.length,
      findingsByKind: { revokedWithAccess: findings.length },
    },
    evidence: { requests: 0, desiredCompared: true, notes: [] },
    findings,
    workspaces: ws,
    groups: Array.from({ length: GROUPS }, (_, g) => ({
      id: `g${g}`,
      parents: g % 10 ? [`g${g - (g % 10)}`] : [],
      members: PEOPLE / GROUPS,
    })),
    people,
    organizationPermissions: [],
  };
}

const data = review();
const started = performance.now();
const html = renderReviewHtml(data);
const renderMs = performance.now() - started;
const dir = mkdtempSync(join(tmpdir(), "usersync-bench-review-"));
const file = join(dir, "review.html");
writeFileSync(file, html);
const profile = join(dir, "profile");
const context = await chromium.launchPersistentContext(profile, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
  viewport: { width: 1400, height: 1000 },
});
const loads = [];
const blank = [];
const blankFile = join(dir, "blank.html");
writeFileSync(
  blankFile,
  '<!doctype html><title>x</title><script>document.body || 0</script><body data-ready="true">x</body>',
);
try {
  // The same browser loading a page of one word: what the machine and Chromium cost alone.
  for (let run = 0; run < RUNS; run++) {
    const page = await context.newPage();
    const t0 = performance.now();
    await page.goto(pathToFileURL(blankFile).href, { waitUntil: "load" });
    blank.push(performance.now() - t0);
    await page.close();
  }
  for (let run = 0; run < RUNS; run++) {
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    const t0 = performance.now();
    await page.goto(pathToFileURL(file).href, { waitUntil: "load", timeout: 120_000 });
    await page.waitForSelector("body[data-ready=true]", { timeout: 120_000 });
    const seen = performance.now() - t0;
    const inPage = await page.evaluate("performance.now()");
    const k0 = performance.now();
    await page.fill("#access-q", "p0004");
    await page.waitForFunction(
      (all) => globalThis.document.querySelector("#access-table").getAttribute("data-rows") !== all,
      String(data.summary.accessRows),
      { timeout: 60_000 },
    );
    const filterMs = performance.now() - k0 - 120; // the page waits 120 ms after the last keystroke
    const rowsShown = Number(await page.getAttribute("#access-table", "data-rows"));
    if (errors.length > 0) throw new Error(`page errors: ${errors.join("; ")}`);
    loads.push({ seen, inPage, filterMs, rowsShown });
    await page.close();
  }
} finally {
  await context.close();
  rmSync(dir, { recursive: true, force: true });
}

const row = [
  PEOPLE.toLocaleString("en-US"),
  data.summary.accessRows.toLocaleString("en-US"),
  data.summary.filters.toLocaleString("en-US"),
  `${round(Buffer.byteLength(html) / 1024 / 1024, 1)} MiB`,
  `${round(renderMs / 1000, 2)} s`,
  `${round(median(loads.map((l) => l.inPage)) / 1000, 2)} s (${loads.map((l) => round(l.inPage / 1000, 2)).join(" · ")})`,
  `${round(median(loads.map((l) => l.seen)) / 1000, 2)} s`,
  `${Math.round(median(loads.map((l) => l.filterMs)))} ms`,
  `${round(median(blank) / 1000, 2)} s`,
];
printTable(
  `17. The access review's HTML page: ${PEOPLE.toLocaleString("en-US")} people, ${GROUPS} groups, 100 workspaces (3 levels), median of ${RUNS} loads`,
  [
    "people",
    "person x workspace rows",
    "filters",
    "HTML size",
    "render (Node)",
    "load in Chromium (page)",
    "load (as the test sees it)",
    "one filter keystroke",
    "a one-word page (same browser)",
  ],
  [row],
);
await writeResult("review-html", {
  people: PEOPLE,
  rows: data.summary.accessRows,
  filters: data.summary.filters,
  bytes: Buffer.byteLength(html),
  renderMs,
  loads,
});
