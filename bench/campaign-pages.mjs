// Figure 16, the campaign's decision pages at scale: `usersync campaign open --html-dir` on a
// review snapshot (bench/review.mjs keeps one with BENCH_REVIEW_SNAPSHOT=<path>; 100,000 people as
// figure 16 measured them), five reviewers (a root workspace's tree each, r0* to r3*, and a
// default for the organization rows), under NODE_OPTIONS (default --max-old-space-size=640, the
// CronJobs' ceiling). Prints the command's wall time, CPU (user+sys) and peak RSS
// (/usr/bin/time), the load average, and the folder: files, largest page, total, the index.
// With BENCH_CAMPAIGN_CSV=1 the campaign's CSV too (as figure 16's first rows did). Then the
// largest page and the index opened from the folder in headless Chromium (/usr/bin/chromium,
// playwright-core; BENCH_CAMPAIGN_CHROMIUM=0 leaves it out): time until the page's script is
// ready and its rows drawn, median of 3, beside a one-word page's (the machine's and Chromium's).
// Usage: node bench/campaign-pages.mjs SNAPSHOT.json [rows per page]
import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { dist, median, printTable, round, writeResult } from "./lib.mjs";

const snapshot = process.argv[2];
if (!snapshot) {
  console.error("usage: node bench/campaign-pages.mjs SNAPSHOT.json [rows per page]");
  process.exit(4);
}
const rowsPerPage = process.argv[3];
const dir = await mkdtemp(join(tmpdir(), "usersync-bench-campaign-pages-"));
try {
  await writeFile(
    join(dir, "usersync.yaml"),
    [
      "target:",
      "  baseUrl: http://127.0.0.1:9",
      "review:",
      "  reviewers:",
      "    workspaces:",
      ...[0, 1, 2, 3].map((i) => `      "r${i}*": lead-${i}@bench.example`),
      "    default: owner@bench.example",
      "",
    ].join("\n"),
  );
  const args = ["campaign", "open", "--review", resolve(snapshot), "--campaign", "c.json"];
  args.push("--html-dir", "pages");
  if (rowsPerPage) args.push("--html-rows", rowsPerPage);
  if (process.env.BENCH_CAMPAIGN_CSV) args.push("--csv", "c.csv");
  const load = round(loadavg()[0], 1);
  const t0 = performance.now();
  const r = spawnSync("/usr/bin/time", ["-f", "%M %U %S", process.execPath, join(dist, "cli.js"), ...args], {
    cwd: dir,
    env: {
      ...process.env,
      USERSYNC_TOKEN: "unused",
      USERSYNC_LOGGING_LEVEL: "warn",
      NODE_OPTIONS: process.env.BENCH_CAMPAIGN_NODE_OPTIONS ?? "--max-old-space-size=640",
    },
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  const seconds = round((performance.now() - t0) / 1000, 1);
  if (r.status !== 0) throw new Error(`campaign open: exit ${r.status}: ${r.stderr.slice(-2000)}`);
  const [kib, user, sys] = r.stderr.trim().split("\n").at(-1).split(" ").map(Number);
  const files = await readdir(join(dir, "pages"));
  const sizes = await Promise.all(files.map(async (f) => [f, (await stat(join(dir, "pages", f))).size]));
  sizes.sort((a, b) => b[1] - a[1]);
  const total = sizes.reduce((n, [, s]) => n + s, 0);
  const mib = (b) => round(b / 2 ** 20, 2);
  const result = {
    snapshot,
    rowsPerPage: rowsPerPage ? Number(rowsPerPage) : 2000,
    stdout: r.stdout.trim().split("\n"),
    seconds,
    cpuSeconds: round(user + sys, 1),
    maxRssMiB: Math.round(kib / 1024),
    load,
    files: files.length,
    largestPage: { file: sizes[0][0], MiB: mib(sizes[0][1]) },
    totalMiB: mib(total),
    indexKiB: round(sizes.find(([f]) => f === "index.html")[1] / 1024, 1),
    campaignMiB: mib((await stat(join(dir, "c.json"))).size),
  };
  if (process.env.BENCH_CAMPAIGN_CHROMIUM !== "0")
    result.chromium = await openInChromium(join(dir, "pages"), result.largestPage.file);
  console.log(result.stdout.join("\n"));
  printTable(
    "campaign open --html-dir (one run; /usr/bin/time)",
    ["wall", "CPU", "peak RSS", "load", "files", "largest page", "all pages", "index"],
    [
      [
        `${seconds} s`,
        `${result.cpuSeconds} s`,
        `${result.maxRssMiB} MiB`,
        load,
        files.length,
        `${result.largestPage.MiB} MiB`,
        `${result.totalMiB} MiB`,
        `${result.indexKiB} KiB`,
      ],
    ],
  );
  if (result.chromium)
    printTable(
      "Opened in headless Chromium (median of 3, ms until ready)",
      ["largest page", "rows on it", "index", "a one-word page"],
      [
        [
          `${result.chromium.pageMs} ms`,
          result.chromium.rows,
          `${result.chromium.indexMs} ms`,
          `${result.chromium.blankMs} ms`,
        ],
      ],
    );
  await writeResult("campaign-pages", result);
} finally {
  await rm(dir, { recursive: true, force: true });
}

/** The largest page, the index and a one-word page, each opened 3 times: ms until ready (median). */
async function openInChromium(folder, largest) {
  const { chromium } = await import("playwright-core");
  const blank = join(folder, "..", "blank.html");
  await writeFile(blank, '<!doctype html><title>x</title><body data-ready="true">x</body>');
  const context = await chromium.launchPersistentContext(join(folder, "..", "profile"), {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
    ],
  });
  const time = async (file, ready) => {
    const runs = [];
    let rows = 0;
    for (let i = 0; i < 3; i++) {
      const page = await context.newPage();
      const t0 = performance.now();
      await page.goto(pathToFileURL(file).href, { waitUntil: "load", timeout: 120_000 });
      if (ready) await page.waitForSelector(ready, { timeout: 120_000 });
      runs.push(performance.now() - t0);
      rows = await page.locator("#rows tr").count();
      await page.close();
    }
    return { ms: Math.round(median(runs)), rows };
  };
  try {
    const page = await time(join(folder, largest), "body[data-ready=true]");
    return {
      pageMs: page.ms,
      rows: page.rows,
      indexMs: (await time(join(folder, "index.html"))).ms,
      blankMs: (await time(blank, "body[data-ready=true]")).ms,
    };
  } finally {
    await context.close();
  }
}
