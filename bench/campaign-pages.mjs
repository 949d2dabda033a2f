// Figure 16, the campaign's decision pages at scale: `usersync campaign open --html-dir` on a
// review snapshot (bench/review.mjs keeps one with BENCH_REVIEW_SNAPSHOT=<path>; 100,000 people as
// figure 16 measured them), five reviewers (a root workspace's tree each, r0* to r3*, and a
// default for the organization rows), under NODE_OPTIONS (default --max-old-space-size=640, the
// CronJobs' ceiling). Prints the command's wall time, CPU (user+sys) and peak RSS
// (/usr/bin/time), the load average, and the folder: files, largest page, total, the index.
// With BENCH_CAMPAIGN_CSV=1 the campaign's CSV too (as figure 16's first rows did).
// Usage: node bench/campaign-pages.mjs SNAPSHOT.json [rows per page]
import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { dist, printTable, round, writeResult } from "./lib.mjs";

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
  await writeResult("campaign-pages", result);
} finally {
  await rm(dir, { recursive: true, force: true });
}
