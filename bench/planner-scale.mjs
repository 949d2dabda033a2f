// Figure 1, planner scale: 10k, 100k and 1M desired users against as many actual ones (98% in
// sync, 1% new, 1% with a changed display name). CPU time of `plan()` and the peak RSS of the
// whole process (inputs included), each run in its own process. Median of 3 runs for 10k and
// 100k; one run for 1M. Targets: 100k under 1 s and 300 MB; 1M under 15 s and 2 GB. CPU time is
// the process's (`process.cpuUsage`), so it includes the GC's helper threads; wall time is shown too.
import { fileURLToPath } from "node:url";
import {
  childReport,
  desiredUsers,
  fromDist,
  measureInChild,
  median,
  printTable,
  round,
  writeResult,
} from "./lib.mjs";

const SIZES = [10_000, 100_000, 1_000_000];
const TARGETS = { 100000: { cpuMs: 1000, rssMiB: 300 }, 1000000: { cpuMs: 15000, rssMiB: 2048 } };

if (process.argv[2] === "--child") await child(Number(process.argv[3]));
else await main();

async function child(n) {
  const { plan, defaultPolicy } = await fromDist("plan/index.js");
  const users = desiredUsers(n);
  const idpUsers = [];
  const mappings = [];
  users.forEach((u, i) => {
    if (i % 100 === 0) return; // new: credentials and mapping to create
    const displayName = i % 100 === 1 ? `Old ${u.displayName}` : u.displayName;
    idpUsers.push({ email: u.email, displayName, authenticationId: `auth-${u.id}` });
    mappings.push({ id: u.id, authenticationId: `auth-${u.id}`, email: u.email, groups: ["all"] });
  });
  const actual = { idpUsers, mappings, groups: [{ id: "all", name: "All", parents: [] }], callerId: "admin" };
  const policy = { ...defaultPolicy, passwords: "none" };
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  const p = plan({ desired: { users, groups: [], files: ["users.csv"] }, actual, policy, profile: "v1" });
  const wallMs = round(performance.now() - started, 1);
  childReport({ wallMs, steps: p.steps.length }, cpuStart);
}

async function main() {
  const rows = [];
  const results = [];
  for (const n of SIZES) {
    const runs = n >= 1_000_000 ? 1 : 3;
    const measured = [];
    for (let r = 0; r < runs; r++)
      measured.push(
        await measureInChild(
          fileURLToPath(import.meta.url),
          ["--child", String(n)],
          ["--max-old-space-size=4096"],
        ),
      );
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
      t ? `< ${t.cpuMs / 1000} s, < ${t.rssMiB} MiB: ${verdict}` : "",
    ]);
  }
  printTable(
    "1. Planner scale (CPU time of plan(); peak RSS of the process, inputs included)",
    ["users", "runs", "steps", "CPU (median)", "wall", "peak RSS", "target"],
    rows,
  );
  await writeResult("planner-scale", { results });
}
