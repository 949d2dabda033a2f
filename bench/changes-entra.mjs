// Figure 19, changes-only runs (issue 48): the built CLI (`apply --yes`, source.changes.mode:
// changes) against the Graph stand-in (src/emulator/graph: HTTPS, tokens from the real
// @azure/identity) holding BENCH_PEOPLE people (default 100,000) in BENCH_GROUPS groups (default
// 50; the tenant of figure 13) and the service emulator, both adding 20 ms to every answer. A whole
// first run creates everyone; then (a) a run when nothing changed, (b) a run after one leaver
// (disabled in Entra), (c) a run after a hundred changes (fifty leavers, fifty renamed people).
// For each: requests to Graph (the token's apart) and to the service, the run's wall time, and,
// for the leaver, the time from the change in the directory to the access removed. Prints the
// figures; asserts nothing.
//
// Each CLI run is measured by /usr/bin/time where it exists: its CPU time (user + system) and peak
// RSS beside the wall time, and the load average (1 minute) when it started. Knobs for profiling:
// BENCH_CPU_PROF=<dir> runs each measured CLI with `--cpu-prof --cpu-prof-dir <dir>`;
// BENCH_HOLD=<file> stops after the first run and keeps both stand-ins running: it writes the
// config path, the environment and the leavers' ids to <file> (JSON) and reads lines on stdin
// (`leaver` disables the next member and prints their id; `quit` ends), so the (a)/(b) runs can be
// repeated and profiled by hand against one set-up (`node --cpu-prof dist/cli.js apply ...`).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { dist, fromDist, here, printTable, round, writeResult } from "./lib.mjs";

const PEOPLE = Number(process.env.BENCH_PEOPLE ?? 100_000);
const GROUPS = Number(process.env.BENCH_GROUPS ?? 50);
const LATENCY_MS = 20;
const SECRET = "bench-entra-secret";
const TOKEN = "bench-changes-token";
const TLS = join(here, "..", "fixtures", "tls");
const TIME = "/usr/bin/time";
const CPU_PROF = process.env.BENCH_CPU_PROF;
const HOLD = process.env.BENCH_HOLD;

/** The CPU seconds (user + system) and peak RSS (KiB) /usr/bin/time wrote last on stderr. */
function timeOf(stderr) {
  const m = /USAGE (\S+) (\S+) (\d+)\s*$/.exec(stderr);
  return m ? { cpuS: Number(m[1]) + Number(m[2]), maxRssMiB: Number(m[3]) / 1024 } : undefined;
}

/** One run of the built CLI; its exit code, stdout, wall time, and (with /usr/bin/time) CPU and peak RSS. */
function cli(args, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const node = [...(CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", CPU_PROF] : []), join(dist, "cli.js")];
    const timed = existsSync(TIME);
    const command = timed
      ? [TIME, ["-f", "USAGE %U %S %M", process.execPath, ...node, ...args]]
      : [process.execPath, [...node, ...args]];
    const child = spawn(command[0], command[1], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) =>
      resolve({ code, stdout, stderr, wallMs: performance.now() - started, usage: timeOf(stderr) }),
    );
  });
}

async function main() {
  const { startGraphStandIn } = await fromDist("emulator/graph/server.js");
  const { generateTenant, STAND_IN_CLIENT, STAND_IN_TENANT } = await fromDist("emulator/graph/generate.js");
  const { startEmulator } = await fromDist("emulator/index.js");
  const tenant = generateTenant({ people: PEOPLE, groups: GROUPS, secret: SECRET });
  const graph = await startGraphStandIn({
    tenant,
    latencyMs: LATENCY_MS,
    idleMs: 3_600_000,
    tls: { key: readFileSync(join(TLS, "server-key.pem")), cert: readFileSync(join(TLS, "server.pem")) },
  });
  const emulator = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    signIn: { oauthIssuerLocation: "https://login.microsoftonline.com/t/v2.0", oauthSubjectIdClaim: "oid" },
    faults: { latencyMs: LATENCY_MS },
  });
  const dir = await mkdtemp(join(tmpdir(), "usersync-bench-changes-"));
  const config = join(dir, "usersync.yaml");
  await writeFile(
    config,
    JSON.stringify({
      target: { baseUrl: emulator.url, allowInsecureHttp: true },
      source: {
        type: "entra",
        entra: {
          tenant: STAND_IN_TENANT,
          clientId: STAND_IN_CLIENT,
          credential: "secret",
          authorityHost: graph.url,
          graphUrl: graph.url,
          caFile: join(TLS, "ca.pem"),
          groups: [{ filter: "startswith(displayName,'Team')" }],
        },
        changes: { mode: "changes", fullEvery: 0 },
      },
      policy: { deletions: "revoke", maxDeletes: "10%" },
      state: { file: join(dir, "state.json") },
      execution: { requestsPerSecond: 10_000, concurrency: 32 },
      logging: { level: "warn", format: "json" },
    }),
  );
  const env = { USERSYNC_TOKEN: TOKEN, USERSYNC_ENTRA_CLIENT_SECRET: SECRET };
  const rows = [];
  const results = {};
  /** One measured run: the requests each side saw and the wall time. */
  const measure = async (name, args = ["apply", "--config", config, "--yes"]) => {
    const graphFrom = graph.requests.length;
    emulator.resetLog();
    const load = round(loadavg()[0], 1);
    const run = await cli(args, env);
    if (run.code !== 0) throw new Error(`${name}: exit ${run.code}\n${run.stderr.slice(-3000)}`);
    const graphReads = graph.requests.slice(graphFrom).filter((r) => r.path.startsWith("/v1.0/")).length;
    const tokens = graph.requests.slice(graphFrom).length - graphReads;
    const service = emulator.requestLog().length;
    const read = /^Read .*$/m.exec(run.stdout)?.[0] ?? "";
    const cpu = run.usage ? `${round(run.usage.cpuS, 2)} s` : "n/a";
    const rss = run.usage ? `${round(run.usage.maxRssMiB, 0)} MiB` : "n/a";
    results[name] = {
      graphReads,
      tokens,
      service,
      wallMs: round(run.wallMs, 0),
      ...(run.usage
        ? { cpuMs: round(run.usage.cpuS * 1000, 0), maxRssMiB: round(run.usage.maxRssMiB, 0) }
        : {}),
      load,
      read,
    };
    rows.push([
      name,
      graphReads,
      tokens,
      service,
      graphReads + tokens + service,
      `${round(run.wallMs / 1000, 2)} s`,
      cpu,
      rss,
      load,
      read,
    ]);
    return run;
  };
  try {
    await measure("first run (whole: creates everyone)");
    const members = tenant.users.filter((u) => u.accountEnabled && u.userType === "Member");
    if (HOLD) return await hold(config, env, graph, members.slice(1000));
    await measure("(a) nothing changed");
    const leaver = members[7];
    const changedAt = performance.now();
    graph.changes.updateUser(leaver.id, { accountEnabled: false });
    const run = await measure("(b) one leaver");
    const revokedMs = performance.now() - changedAt;
    const mapping = emulator.state().mappings.find((m) => m.email === leaver.mail.toLowerCase());
    results.leaverRevoked = mapping === undefined || mapping.groups.length === 0;
    results.timeToRevokeMs = round(revokedMs, 0);
    for (const u of members.slice(100, 150)) graph.changes.updateUser(u.id, { accountEnabled: false });
    for (const u of members.slice(200, 250))
      graph.changes.updateUser(u.id, { displayName: `${u.displayName} (renamed)` });
    await measure("(c) a hundred changes");
    printTable(
      `19. Changes-only runs (Entra, Graph stand-in and service emulator, ${LATENCY_MS} ms a request each), ${PEOPLE.toLocaleString("en")} people in ${GROUPS} groups`,
      [
        "run",
        "Graph requests",
        "token requests",
        "service requests",
        "in all",
        "wall",
        "CPU (user+sys)",
        "peak RSS",
        "load (1 min)",
        "how it read",
      ],
      rows,
    );
    console.log(
      `time from the leaver's change in Entra to their access removed: ${round(revokedMs / 1000, 2)} s ` +
        `(the run alone; with the 5-minute schedule add up to one interval); access removed: ${results.leaverRevoked}; ${run.stdout.includes("revoke") ? "revoke planned" : ""}`,
    );
    await writeResult("changes-entra", { people: PEOPLE, groups: GROUPS, latencyMs: LATENCY_MS, ...results });
  } finally {
    await emulator.close();
    await graph.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** BENCH_HOLD: the set-up kept running for runs by hand; `leaver` on stdin disables the next one. */
async function hold(config, env, graph, members) {
  writeFileSync(HOLD, JSON.stringify({ config, env }) + "\n");
  console.log(`holding: ${HOLD} names the config; type "leaver" or "quit"`);
  let next = 0;
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (line.trim() === "quit") break;
    if (line.trim() !== "leaver") continue;
    const leaver = members[next++];
    graph.changes.updateUser(leaver.id, { accountEnabled: false });
    console.log(`disabled ${leaver.id} (${leaver.mail})`);
  }
  lines.close();
  process.stdin.destroy(); // the stand-ins close in main's finally; nothing keeps the process
}

await main();
