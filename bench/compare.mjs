// `npm run bench:compare -- <ref> [--only 1,4] [--rounds 3]`: the chosen figures (default 1) for
// the build of <ref> ("before") and of this work tree ("after"), side by side. <ref> is built in
// a temporary git worktree (its node_modules a link to this one's when the lockfiles are the
// same, else `npm ci` there), then the two builds alternate, round after round, each running the
// figure scripts of this tree (USERSYNC_DIST points them at a build), so both are measured the
// same way and a machine that gets busier halfway hurts both alike. Prints every round of each
// build and, for figure 1, the ratio of the medians (after / before: below 1 is faster or
// smaller). Run `npm run build` first (`npm run bench:compare` does). The worktree is removed at
// the end. On a shared machine, read CPU time (figure 1 gives it), not wall time.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, symlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { here, median, printTable, round } from "./lib.mjs";

const SCRIPTS = {
  1: "planner-scale",
  2: "read-input",
  3: "listing",
  4: "apply-throughput",
  5: "engine-overhead",
  6: "baseline",
  7: "rate-limit",
  8: "emulator-throughput",
  11: "permissions",
};
const root = resolve(here, "..");

function usage(message) {
  console.error(`${message}\nusage: npm run bench:compare -- <git ref> [--only 1,4] [--rounds 3]`);
  process.exit(2);
}

function parseArgs(argv) {
  const out = { ref: undefined, figures: [1], rounds: 2 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--only")
      out.figures = String(argv[++i] ?? "")
        .split(",")
        .map(Number);
    else if (a === "--rounds") out.rounds = Number(argv[++i]);
    else if (a.startsWith("--")) usage(`unknown option ${a}`);
    else out.ref = a;
  }
  if (out.ref === undefined) usage("which commit to compare with?");
  for (const f of out.figures)
    if (!SCRIPTS[f]) usage(`no figure ${f}: one of ${Object.keys(SCRIPTS).join(", ")}`);
  if (!(out.rounds >= 1)) usage("--rounds takes a number, 1 or more");
  return out;
}

const git = (...args) => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();

function run(cmd, args, cwd) {
  execFileSync(cmd, args, { cwd, stdio: ["ignore", "inherit", "inherit"] });
}

/** Checks out and builds `commit` in `dir`; node_modules shared when the lockfiles agree. */
function buildRef(commit, dir) {
  git("worktree", "add", "--detach", dir, commit);
  const theirs = git("show", `${commit}:package-lock.json`);
  const ours = readFileSync(join(root, "package-lock.json"), "utf8").trim();
  if (theirs === ours) symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  else run("npm", ["ci", "--no-audit", "--no-fund"], dir);
  run(
    process.execPath,
    [join(dir, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"],
    dir,
  );
}

/** One run of a figure script against the build in `dist`: its printed tables and its result file. */
function runFigure(script, dist) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(here, `${script}.mjs`)], {
      env: { ...process.env, USERSYNC_DIST: dist },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`${script} against ${dist} exited ${code}:\n${out}`));
      const file = join(here, "results", `${script}.json`);
      resolvePromise({ out, result: existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined });
    });
  });
}

/** Figure 1's rows side by side: every run's CPU and peak RSS, the medians' ratio. */
function planner(before, after) {
  const rows = [];
  for (const b of before[0].result.results) {
    const pick = (runs) =>
      runs.flatMap((r) => r.result.results.filter((x) => x.users === b.users)[0]?.measured ?? []);
    const bs = pick(before);
    const as = pick(after);
    const cpu = (ms) => ms.map((m) => round(m.cpuMs / 1000, 2)).join(" · ");
    const rss = (ms) => ms.map((m) => Math.round(m.maxRssMiB)).join(" · ");
    const ratio = (key) => round(median(as.map((m) => m[key])) / median(bs.map((m) => m[key])), 2);
    rows.push([
      b.users.toLocaleString("en"),
      `${cpu(bs)} s`,
      `${cpu(as)} s`,
      ratio("cpuMs"),
      `${rss(bs)} MiB`,
      `${rss(as)} MiB`,
      ratio("maxRssMiB"),
    ]);
  }
  printTable(
    "1. Planner scale: CPU time of plan() and peak RSS, every run of each build (rounds alternate)",
    ["users", "CPU before", "CPU after", "ratio", "peak RSS before", "peak RSS after", "ratio"],
    rows,
  );
}

async function main() {
  const { ref, figures, rounds } = parseArgs(process.argv.slice(2));
  const commit = git("rev-parse", "--verify", `${ref}^{commit}`);
  const head = git("rev-parse", "--short", "HEAD");
  const dirty = git("status", "--porcelain", "--untracked-files=no") !== "";
  const tmp = await mkdtemp(join(tmpdir(), "usersync-compare-"));
  const other = join(tmp, "before");
  console.log(
    `bench:compare ${new Date().toISOString()}: before = ${ref} (${commit.slice(0, 7)}), after = this tree (${head}${dirty ? " with uncommitted changes" : ""}); node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()
      .map((l) => round(l, 1))
      .join(" ")}`,
  );
  try {
    buildRef(commit, other);
    const dists = { before: join(other, "dist"), after: join(root, "dist") };
    for (const f of figures) {
      const script = SCRIPTS[f];
      const runs = { before: [], after: [] };
      for (let r = 1; r <= rounds; r++)
        for (const side of ["before", "after"]) {
          const res = await runFigure(script, dists[side]);
          runs[side].push(res);
          console.log(
            `\n## ${f}. ${script}: ${side}, round ${r} of ${rounds} (load average ${round(loadavg()[0], 1)})`,
          );
          console.log(res.out.trim());
        }
      if (f === 1) planner(runs.before, runs.after);
    }
    console.log(
      `load average at the end: ${loadavg()
        .map((l) => round(l, 1))
        .join(" ")}`,
    );
  } finally {
    try {
      git("worktree", "remove", "--force", other);
    } catch {
      // Not created (the ref did not build); the folder goes below.
    }
    await rm(tmp, { recursive: true, force: true });
  }
}

await main();
