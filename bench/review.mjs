// Figure 16, the access review (issue 39): PEOPLE people (default 10,000) in 200 groups (three
// levels of parents) over 100 workspaces (a three-level hierarchy: 4 roots, 4 children each, 5
// grandchildren each), 20,000 user data filters (two per person), a direct grant for every 100th
// person, organization MANAGE for five, with 5 ms latency per request. The listing is
// `usersync review`'s (cli/review-listing.ts: every workspace's grants, by assignee or by
// workspace, whichever costs fewer requests, the organization's grants, each workspace's filters
// in pages): its requests and wall time, once. The computation (`buildReview`, then the CSV)
// runs in a child process per run over the listed state read from JSON, after a GC and a reset
// of the peak RSS, so the peak is that of the inputs plus the review. Median of 3.
// Then the whole `usersync review` command per format: its peak RSS and CPU (/usr/bin/time), its
// heap (peak and live, from --trace-gc), the load average; with BENCH_REVIEW_BASE=<another
// build's dist> that build's too, and both builds' --from bytes compared.
// Knobs: BENCH_REVIEW_RUNS (the child's runs, default 3; 0 leaves the child out),
// BENCH_REVIEW_FORMATS (the command's formats, default csv,json,html; --from runs need json),
// BENCH_REVIEW_FROM_FORMATS (the formats rendered --from the snapshot, default the same),
// BENCH_REVIEW_NODE_OPTIONS (NODE_OPTIONS of the measured commands, e.g.
// --max-old-space-size=640 as the CronJobs set it), BENCH_REVIEW_SNAPSHOT (a path: the JSON
// snapshot the command wrote is kept there, for `campaign open` at that size), BENCH_REVIEW_HOLD
// (seconds the emulator is kept up after, for commands run by hand against it). 100,000 people as figure 16 measured them:
// BENCH_REVIEW_RUNS=0 BENCH_REVIEW_FORMATS=json BENCH_REVIEW_FROM_FORMATS=csv,html \
//   BENCH_REVIEW_NODE_OPTIONS=--max-old-space-size=640 node bench/review.mjs 100000
// Usage: [BENCH_REVIEW_BASE=/tmp/base-dist] node bench/review.mjs [people]
import { copyFile, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  childReport,
  dist,
  fromDist,
  measureRuns,
  median,
  printTable,
  resetPeakRss,
  round,
  startEmulatorWorker,
  TOKEN,
  writeResult,
} from "./lib.mjs";

const CHILD = process.argv[2] === "--child";
const { defaultPolicy } = await fromDist("plan/index.js");
const { buildReview } = await fromDist("review/build.js");

if (CHILD) {
  const actual = JSON.parse(readFileSync(process.argv[3], "utf8"));
  const { renderReviewCsv } = await fromDist("report/review/csv.js");
  const { renderSnapshotJson } = await fromDist("report/review/json.js");
  const { renderReviewHtml } = await fromDist("report/review/html.js");
  const { toSnapshot } = await fromDist("review/to-snapshot.js");
  const { fromSnapshot } = await fromDist("review/from-snapshot.js");
  resetPeakRss();
  const start = process.cpuUsage();
  const t0 = performance.now();
  const review = buildReview({
    actual,
    policy: defaultPolicy,
    signIn: "builtin",
    snapshot: {
      generatedAt: "2026-11-27T00:00:00.000Z",
      organization: "bench",
      baseUrl: "",
      usersyncVersion: "bench",
    },
    requests: 0,
  });
  const reviewMs = performance.now() - t0;
  const reviewCpu = process.cpuUsage(start);
  const t1 = performance.now();
  const csv = renderReviewCsv(review);
  const csvMs = performance.now() - t1;
  // Issue 46: one snapshot (digest over its canonical JSON), every format from it.
  const t2 = performance.now();
  const snapshot = toSnapshot(review);
  const json = renderSnapshotJson(snapshot);
  const snapshotMs = performance.now() - t2;
  const html = renderReviewHtml(fromSnapshot(snapshot));
  childReport(
    {
      reviewCpuMs: round((reviewCpu.user + reviewCpu.system) / 1000, 1),
      reviewWallMs: round(reviewMs, 1),
      csvMs: round(csvMs, 1),
      snapshotMs: round(snapshotMs, 1),
      snapshotMiB: round(Buffer.byteLength(json) / 2 ** 20, 1),
      htmlMiB: round(Buffer.byteLength(html) / 2 ** 20, 1),
      csvMiB: round(Buffer.byteLength(csv) / 2 ** 20, 1),
      rows: review.summary.accessRows,
      findings: review.findings.length,
    },
    start,
  );
  process.exit(0);
}

const PEOPLE = Number(process.argv[2] ?? 10_000);
const LATENCY_MS = 5;
const RUNS = Number(process.env.BENCH_REVIEW_RUNS ?? 3);
const FORMATS = (process.env.BENCH_REVIEW_FORMATS ?? "csv,json,html").split(",").filter(Boolean);
const FROM_FORMATS = (process.env.BENCH_REVIEW_FROM_FORMATS ?? FORMATS.join(",")).split(",").filter(Boolean);
const { createClient, listActualState } = await fromDist("service/index.js");
const { reviewPermissionListing, reviewFilterListing } = await fromDist("cli/review-listing.js");
const { createLogger } = await fromDist("logging.js");

const person = (i) => `p${String(i).padStart(6, "0")}`;
const group = (i) => `g${String(i).padStart(3, "0")}`;
const roots = [0, 1, 2, 3].map((r) => `r${r}`);
const children = roots.flatMap((r) => [0, 1, 2, 3].map((c) => `${r}-c${c}`));
const grandchildren = children.flatMap((c) => [0, 1, 2, 3, 4].map((g) => `${c}-g${g}`));

function seed() {
  const workspaces = [
    ...roots.map((id) => ({ id, permissions: [] })),
    ...children.map((id) => ({ id, parent: id.replace(/-c\d$/, ""), permissions: [] })),
    ...grandchildren.map((id) => ({ id, parent: id.replace(/-g\d$/, ""), permissions: [] })),
  ];
  const byId = new Map(workspaces.map((w) => [w.id, w]));
  // 20 top groups (hierarchy VIEW on a root), 60 below them (VIEW ANALYZE on a child), 120 at
  // the bottom (VIEW EXPORT on a grandchild; every 40th MANAGE).
  const groups = Array.from({ length: 200 }, (_, i) => ({
    id: group(i),
    parents: i < 20 ? [] : i < 80 ? [group(i % 20)] : [group(20 + (i % 60))],
  }));
  for (let i = 0; i < 200; i++) {
    if (i < 20)
      byId
        .get(children[i % 16])
        .permissions.push({ userGroup: group(i), permissions: ["VIEW"], hierarchy: ["VIEW"] });
    else if (i < 80)
      byId.get(children[i % 16]).permissions.push({ userGroup: group(i), permissions: ["ANALYZE", "VIEW"] });
    else
      byId.get(grandchildren[i % 80]).permissions.push({
        userGroup: group(i),
        permissions: i % 40 === 0 ? ["MANAGE"] : ["EXPORT", "VIEW"],
      });
  }
  const lowOf = (i) => 80 + (i % 120);
  const idpUsers = [];
  const mappings = [{ id: "admin", groups: [] }];
  const dataFilters = [];
  for (let i = 0; i < PEOPLE; i++) {
    idpUsers.push({
      email: `${person(i)}@bench.example`,
      displayName: person(i),
      authenticationId: `a-${i}`,
    });
    mappings.push({
      id: person(i),
      authenticationId: `a-${i}`,
      email: `${person(i)}@bench.example`,
      groups: i % 3 === 0 ? [group(lowOf(i)), group(lowOf(i + 7))] : [group(lowOf(i))],
    });
    const ws = grandchildren[lowOf(i) % 80];
    dataFilters.push({
      workspace: ws,
      id: `f-${i}-a`,
      maql: `{label/region} = "r${i % 7}"`,
      user: person(i),
    });
    dataFilters.push({
      workspace: roots[lowOf(i) % 4],
      id: `f-${i}-b`,
      maql: `{label/country} = "c${i % 11}"`,
      user: person(i),
    });
    if (i % 100 === 0) byId.get(ws).permissions.push({ user: person(i), permissions: ["VIEW"] });
  }
  const organizationPermissions = [0, 1, 2, 3, 4].map((k) => ({
    user: person(Math.floor((k * PEOPLE) / 5)),
    permissions: ["MANAGE"],
  }));
  return { idpUsers, mappings, groups, workspaces, dataFilters, organizationPermissions };
}

const emulator = await startEmulatorWorker({
  seed: seed(),
  tokens: { [TOKEN]: "admin" },
  faults: { latencyMs: LATENCY_MS },
});
const dir = await mkdtemp(join(tmpdir(), "usersync-bench-review-"));
try {
  const client = await createClient({
    baseUrl: emulator.url,
    token: TOKEN,
    profile: "v1",
    requestsPerSecond: 0,
    logger: createLogger({ level: "silent" }),
  });
  const started = performance.now();
  const actual = await listActualState(client, {
    permissions: reviewPermissionListing(500),
    dataFilters: reviewFilterListing,
  });
  const listSeconds = (performance.now() - started) / 1000;
  const requests = client.stats().requests;
  await client.close();
  const file = join(dir, "actual.json");
  await writeFile(file, JSON.stringify(actual));
  if (process.env.BENCH_REVIEW_KEEP) await writeFile(process.env.BENCH_REVIEW_KEEP, JSON.stringify(actual));
  const result = {
    people: PEOPLE,
    groups: actual.groups.length,
    workspaces: actual.permissions.workspaces.length,
    grants: actual.permissions.assignments.length,
    filters: actual.dataFilters.filters.length,
    listing: { requests, seconds: round(listSeconds), via: actual.permissions.via },
  };
  if (RUNS > 0) await measureChild(result, file);
  result.command = await measureCommand(emulator.url);
  // Kept for `campaign open` at this size (figure 16): the snapshot the command wrote.
  if (process.env.BENCH_REVIEW_SNAPSHOT && FORMATS.includes("json"))
    await copyFile(join(dir, "this.json"), process.env.BENCH_REVIEW_SNAPSHOT);
  // The emulator kept up this many seconds more, for commands run by hand against it (remediate).
  if (Number(process.env.BENCH_REVIEW_HOLD ?? 0) > 0) {
    console.log(
      `emulator ${emulator.url} held ${process.env.BENCH_REVIEW_HOLD} s; config ${dir}/usersync.yaml`,
    );
    await new Promise((done) => setTimeout(done, Number(process.env.BENCH_REVIEW_HOLD) * 1000));
  }
  printTable(
    "The whole `usersync review` command (one run each; peak RSS of the process, /usr/bin/time)",
    [
      "build",
      "format",
      "wall",
      "CPU",
      "peak RSS",
      "heap: peak / live",
      "load",
      "file",
      "same bytes (--from)",
    ],
    result.command.map((c) => [
      c.build,
      c.format,
      `${c.seconds} s`,
      `${c.cpuSeconds} s`,
      `${c.maxRssMiB} MiB`,
      `${c.heapUsedMiB} / ${c.heapLiveMiB} MiB`,
      c.load,
      `${c.fileMiB} MiB`,
      c.same ?? "",
    ]),
  );
  await writeResult("review", result);
} finally {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
}

/** The computation alone, in a child per run over the listed state read from `file`. */
async function measureChild(result, file) {
  const runs = await measureRuns(fileURLToPath(import.meta.url), ["--child", file], {
    runs: RUNS,
    nodeArgs: ["--expose-gc"],
  });
  const pick = (k) => median(runs.map((r) => r[k]));
  Object.assign(result, {
    review: {
      cpuMs: pick("reviewCpuMs"),
      wallMs: pick("reviewWallMs"),
      csvMs: pick("csvMs"),
      peakRssMiB: pick("maxRssMiB"),
      rows: runs[0].rows,
      csvMiB: runs[0].csvMiB,
      snapshotMs: pick("snapshotMs"),
      snapshotMiB: runs[0].snapshotMiB,
      htmlMiB: runs[0].htmlMiB,
      findings: runs[0].findings,
    },
    runs,
  });
  printTable(
    `Access review: ${PEOPLE} people, ${result.groups} groups, ${result.workspaces} workspaces, ${result.filters} filters (median of ${RUNS})`,
    ["part", "requests", "wall", "CPU", "peak RSS", "result"],
    [
      [
        "listing (5 ms latency)",
        result.listing.requests,
        `${result.listing.seconds} s`,
        "",
        "",
        `grants ${result.listing.via}`,
      ],
      [
        "buildReview",
        "",
        `${result.review.wallMs} ms`,
        `${result.review.cpuMs} ms`,
        `${result.review.peakRssMiB} MiB`,
        `${result.review.rows} access rows`,
      ],
      ["CSV", "", `${result.review.csvMs} ms`, "", "", `${result.review.csvMiB} MiB`],
    ],
  );
}

/**
 * Issue 46: `usersync review` itself, listing included, per format, its peak RSS read by
 * /usr/bin/time (%M). With BENCH_REVIEW_BASE=<another build's dist> the same runs of that build
 * too, in the same run (the ratio on a loaded machine), and each format rendered by both builds
 * `--from` one snapshot, compared byte for byte.
 */
async function measureCommand(url) {
  const builds = [["this", dist]];
  if (process.env.BENCH_REVIEW_BASE) builds.unshift(["base", resolve(process.env.BENCH_REVIEW_BASE)]);
  await writeFile(join(dir, "usersync.yaml"), `target:\n  baseUrl: ${url}\n`);
  // USERSYNC_DIST is the bench's (lib.mjs), not a config variable the command would accept.
  const { USERSYNC_DIST: _dist, ...inherited } = process.env;
  const env = {
    ...inherited,
    USERSYNC_TOKEN: TOKEN,
    USERSYNC_LOGGING_LEVEL: "warn",
    NODE_OPTIONS: process.env.BENCH_REVIEW_NODE_OPTIONS ?? "",
  };
  const cli = (d, args) => {
    const t0 = performance.now();
    // --trace-gc: each collection's heap before it, on stdout (the review goes to --out).
    const r = spawnSync(
      "/usr/bin/time",
      ["-f", "%M %U %S", process.execPath, "--trace-gc", join(d, "cli.js"), "review", ...args],
      { cwd: dir, env, encoding: "utf8", maxBuffer: 1 << 28 },
    );
    if (r.status !== 0)
      throw new Error(`review ${args.join(" ")}: exit ${r.status}: ${r.stderr.slice(-2000)}`);
    const [kib, user, sys] = r.stderr.trim().split("\n").at(-1).split(" ").map(Number);
    return {
      seconds: round((performance.now() - t0) / 1000),
      cpuSeconds: round(user + sys),
      maxRssMiB: round(kib / 1024, 0),
      ...peakHeap(r.stdout),
      load: round(loadavg()[0], 1),
    };
  };
  const sha = async (f) =>
    createHash("sha256")
      .update(await readFile(join(dir, f)))
      .digest("hex");
  const rows = [];
  for (const format of FORMATS)
    for (const [build, d] of builds) {
      const out = `${build}.${format}`;
      const m = cli(d, ["--format", format, "--out", out]);
      rows.push({ build, format, ...m, fileMiB: round((await stat(join(dir, out))).size / 2 ** 20, 1) });
    }
  // Rendering only: every build from the one snapshot the first build wrote.
  const from = `${builds[0][0]}.json`;
  if (!FORMATS.includes("json")) return rows;
  for (const format of FROM_FORMATS) {
    const hashes = [];
    for (const [build, d] of builds) {
      const out = `from-${build}.${format}`;
      const m = cli(d, ["--from", from, "--format", format, "--out", out]);
      hashes.push(await sha(out));
      rows.push({
        build,
        format: `${format} --from`,
        ...m,
        fileMiB: round((await stat(join(dir, out))).size / 2 ** 20, 1),
      });
    }
    rows.at(-1).same = hashes.every((h) => h === hashes[0]) ? "yes" : "NO";
  }
  return rows;
}

/**
 * From --trace-gc lines (`Mark-Compact 180.2 (200.1) -> 150.3 (190.0) MB`): the largest heap
 * before a collection (its peak) and the largest left after a full one (the live set).
 */
function peakHeap(stdout) {
  let heapUsedMiB = 0;
  let heapLiveMiB = 0;
  for (const m of stdout.matchAll(
    /(Scavenge|Mark-Compact|Mark-sweep)[^\d]*([\d.]+) \(([\d.]+)\) -> ([\d.]+)/g,
  )) {
    heapUsedMiB = Math.max(heapUsedMiB, Number(m[2]));
    if (m[1] !== "Scavenge") heapLiveMiB = Math.max(heapLiveMiB, Number(m[4]));
  }
  return { heapUsedMiB: Math.round(heapUsedMiB), heapLiveMiB: Math.round(heapLiveMiB) };
}
