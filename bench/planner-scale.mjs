// Figure 1, planner scale: 10k, 100k and 1M desired users against as many actual ones (98% in
// sync, 1% new, 1% with a changed display name). The inputs reach plan() the way they do in
// `usersync plan`: the desired state read from a CSV file by `readDesiredState`, the actual state
// parsed from JSON page by page (pages of 500, as the client reads listings) and handed over as
// `listActualState` does (`compactMappings`, where the build has it). CPU time of `plan()` and
// the peak RSS while it runs, each run in its own process. Before plan() starts, the child
// collects the garbage of reading and parsing and resets the peak RSS (`resetPeakRss`), as a real
// run would have collected it during the seconds of listing: the peak is that of the inputs plus
// what plan() adds, not of the CSV reader (figure 2 has that). Median of 3 runs for 10k and 100k;
// one run for 1M. Targets (issue 33): 100k at most 0.5 s and 300 MiB; 1M at most 6 s and
// 1,024 MiB. CPU time is the process's (`process.cpuUsage`), so it includes the GC's and the
// compiler's helper threads; wall time is shown too. `BENCH_PLAN_SIZES=100000,1000000` picks
// the sizes (`npm run bench:compare` runs this script against two builds).
//
// Why not objects built in the script: V8 keeps a string built by a template literal as a rope
// that is flattened (copied) the first time it is hashed, which here happened inside plan() for
// 300k keys. Strings from a file or from JSON are flat already; measuring the ropes made plan()
// look about 15% slower than it is in a run of the CLI.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  childReport,
  fromDist,
  measureRuns,
  median,
  printTable,
  resetPeakRss,
  round,
  writeResult,
  writeStreamed,
} from "./lib.mjs";

const SIZES = (process.env.BENCH_PLAN_SIZES ?? "10000,100000,1000000").split(",").map(Number);
const TARGETS = { 100000: { cpuMs: 500, rssMiB: 300 }, 1000000: { cpuMs: 6000, rssMiB: 1024 } };
/** Items per listing page, as the client asks for them (`execution.pageSize` default). */
const PAGE = 500;

const idOf = (i) => `u${String(i + 1).padStart(7, "0")}`;

/** The desired state: `n` rows of email, id, display name and one group. */
function* usersCsv(n) {
  yield "email,id,displayName,groups\n";
  for (let i = 0; i < n; i++) {
    const id = idOf(i);
    yield `${id}@bench.example,${id},User ${i + 1},all\n`;
  }
}

/**
 * The actual state: every user but each 100th, each 100th+1 with an old display name. Each page
 * of 500 is JSON text parsed on its own, as the client parses each answer, so the garbage of
 * building the input is a page, not the whole organization twice over.
 */
async function actualState(n) {
  const idpUsers = [];
  const mappings = [];
  for (let start = 0; start < n; start += PAGE) {
    const idpPage = [];
    const mappingPage = [];
    for (let i = start; i < Math.min(n, start + PAGE); i++) {
      if (i % 100 === 0) continue; // new: credentials and mapping to create
      const id = idOf(i);
      const email = `${id}@bench.example`;
      const displayName = i % 100 === 1 ? `Old User ${i + 1}` : `User ${i + 1}`;
      // Keys in the order the client's decoders write them.
      idpPage.push({ email, displayName, authenticationId: `auth-${id}` });
      mappingPage.push({ id, groups: ["all"], authenticationId: `auth-${id}`, email });
    }
    for (const u of JSON.parse(JSON.stringify(idpPage))) idpUsers.push(u);
    for (const m of JSON.parse(JSON.stringify(mappingPage))) mappings.push(m);
  }
  // As listActualState hands the listing over, in a build that has it (issue 33).
  const listing = await fromDist("service/actual.js");
  const kept = listing.compactMappings ? listing.compactMappings(mappings, idpUsers) : mappings;
  const groups = [{ id: "all", name: "All", parents: [] }];
  return { idpUsers, mappings: kept, groups, callerId: "admin" };
}

async function child(file) {
  const { plan, defaultPolicy } = await fromDist("plan/index.js");
  const { readDesiredState } = await fromDist("desired/index.js");
  const { state, problems } = await readDesiredState({ file });
  const errors = problems.filter((p) => p.severity !== "warning");
  if (errors.length > 0) throw new Error(`bench input has problems: ${JSON.stringify(errors[0])}`);
  const actual = await actualState(state.users.length);
  const policy = { ...defaultPolicy, passwords: "none" };
  const peakReset = resetPeakRss();
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  const p = plan({ desired: state, actual, policy, profile: "v1" });
  const wallMs = round(performance.now() - started, 1);
  childReport({ wallMs, steps: p.steps.length, peakReset }, cpuStart);
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), "usersync-bench-plan-"));
  try {
    await measureAll(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function measureAll(dir) {
  const rows = [];
  const results = [];
  for (const n of SIZES) {
    const file = join(dir, `users-${n}.csv`);
    await writeStreamed(file, usersCsv(n));
    const measured = await measureRuns(fileURLToPath(import.meta.url), ["--child", file], {
      runs: n >= 1_000_000 ? 1 : 3,
      nodeArgs: ["--max-old-space-size=4096", "--expose-gc"],
    });
    const runs = measured.length;
    const cpuMs = median(measured.map((m) => m.cpuMs));
    const rss = median(measured.map((m) => m.maxRssMiB));
    const t = TARGETS[n];
    const verdict = t ? (cpuMs <= t.cpuMs && rss <= t.rssMiB ? "met" : "MISSED") : "";
    results.push({
      users: n,
      runs,
      cpuMs,
      wallMs: median(measured.map((m) => m.wallMs)),
      maxRssMiB: rss,
      steps: measured[0].steps,
      target: t ?? null,
      verdict,
      measured,
    });
    rows.push([
      n.toLocaleString("en"),
      runs,
      measured[0].steps.toLocaleString("en"),
      `${round(cpuMs / 1000, 2)} s`,
      `${round(median(measured.map((m) => m.wallMs)) / 1000, 2)} s`,
      `${rss} MiB`,
      t ? `<= ${t.cpuMs / 1000} s, <= ${t.rssMiB} MiB: ${verdict}` : "",
    ]);
  }
  printTable(
    `1. Planner scale (CPU time of plan(); peak RSS while it runs, inputs included${
      results.every((r) => r.measured.every((m) => m.peakReset))
        ? ""
        : "; peak not reset on this OS: whole process"
    })`,
    ["users", "runs", "steps", "CPU (median)", "wall", "peak RSS", "target"],
    rows,
  );
  await writeResult("planner-scale", { results });
}

if (process.argv[2] === "--child") await child(process.argv[3]);
else await main();
