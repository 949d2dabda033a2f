// Figure 20, changes-only runs for Okta, Google and LDAP (issue 48; figure 19 is Entra's,
// bench/changes-entra.mjs, which `--source entra` runs). `node bench/changes.mjs --source
// okta|google|ldap` (or BENCH_SOURCE; neither: all three, each in its own process): the built
// CLI (`apply --yes`, source.changes.mode: changes, fullEvery: 0) against the directory (changes-directories.mjs: the Okta or Google stand-in, or a
// real slapd behind a proxy) holding BENCH_PEOPLE people (default 100,000) in BENCH_GROUPS groups
// (default 50), and the service emulator, both adding 20 ms to every request.
//
// The organization is seeded with what the first run would create (every mapping and group, read
// once in-process from a copy of the directory without latency), so the first run is a whole read
// and a whole listing with nothing to create (it checks: writes 0) instead of 100,000 creations;
// what is measured after it (a, b, c) is what it would be after a first run that created them.
// Then (a) a run when nothing changed, (b) a run after one leaver, (c) a run after a hundred
// changes (fifty leavers, twenty-five renamed, twenty-five moved to another group). For each:
// requests to the directory (its tokens or binds apart) and to the service, the wall time, and
// the CLI process's CPU time and peak RSS (/usr/bin/time), the load average at its start; and the
// time from the leaver's change in the directory to their access removed. Asserts nothing.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import * as directories from "./changes-directories.mjs";
import { dist, fromDist, here, printTable, round, writeResult } from "./lib.mjs";

const at = process.argv.indexOf("--source");
/** Unset: each of okta, google and ldap in its own process, one after another. */
const SOURCE = at >= 0 ? process.argv[at + 1] : process.env.BENCH_SOURCE;
const PEOPLE = Number(process.env.BENCH_PEOPLE ?? 100_000);
const GROUPS = Number(process.env.BENCH_GROUPS ?? 50);
const LATENCY_MS = 20;
const TOKEN = "bench-changes-token";

/** One run of the built CLI under /usr/bin/time: exit code, output, wall, CPU and peak RSS. */
function cli(args, env, dir) {
  const timeFile = join(dir, "time.txt");
  return new Promise((resolve, reject) => {
    const load = loadavg()[0];
    const started = performance.now();
    const child = spawn(
      "/usr/bin/time",
      ["-f", "%U %S %M", "-o", timeFile, process.execPath, join(dist, "cli.js"), ...args],
      { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", async (code) => {
      const wallMs = performance.now() - started;
      const [user, sys, rssKiB] = (await readFile(timeFile, "utf8")).trim().split("\n").at(-1).split(" ");
      const cpuMs = (Number(user) + Number(sys)) * 1000;
      resolve({ code, stdout, stderr, wallMs, cpuMs, rssMiB: Number(rssKiB) / 1024, load });
    });
  });
}

/** What the first run would create, as an emulator seed: the desired state read in-process. */
async function seedOf(directory, dir) {
  const { readSource } = await fromDist("desired/sources/index.js");
  const { loadConfig } = await fromDist("config/index.js");
  const { createLogger } = await fromDist("logging.js");
  const copy = await directory.seedSource();
  try {
    const file = join(dir, "seed-source.yaml");
    await writeFile(file, JSON.stringify({ source: copy.source }));
    const config = await loadConfig({ file, env: directory.env, cwd: dir });
    const logger = createLogger({ level: "silent", format: "json", destination: process.stderr });
    const { state } = await readSource({
      config,
      ctx: { env: directory.env, logger, defaultIdentity: "builtin" },
    });
    const present = state.users.filter((u) => u.state !== "absent");
    return {
      groups: state.groups.map((g) => ({ id: g.id, name: g.name, parents: g.parents ?? [] })),
      mappings: present.map((u) => ({
        id: u.id,
        authenticationId: u.authenticationId,
        email: u.email,
        firstname: u.firstname,
        lastname: u.lastname,
        groups: u.groups ?? [],
      })),
    };
  } finally {
    await copy.close();
  }
}

/** `node script ...args` with this process's output; its exit code. */
const run = (script, args = []) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [join(here, script), ...args], { stdio: "inherit" });
    child.on("error", () => resolve(1));
    child.on("close", (c) => resolve(c ?? 1));
  });

async function main() {
  if (SOURCE === undefined) {
    for (const source of ["okta", "google", "ldap"])
      if ((await run("changes.mjs", ["--source", source])) !== 0) process.exitCode = 1;
    return;
  }
  if (SOURCE === "entra") {
    process.exitCode = await run("changes-entra.mjs");
    return;
  }
  const open = directories[SOURCE];
  if (open === undefined) throw new Error(`--source takes okta, google, ldap or entra; got ${SOURCE}`);
  const dir = await mkdtemp(join(tmpdir(), `usersync-bench-changes-${SOURCE}-`));
  const { startEmulator } = await fromDist("emulator/index.js");
  const directory = await open({ people: PEOPLE, groups: GROUPS, latencyMs: LATENCY_MS, dir });
  let emulator;
  try {
    const seedStarted = performance.now();
    const seed = await seedOf(directory, dir);
    const seedMs = performance.now() - seedStarted;
    emulator = await startEmulator({
      port: 0,
      tokens: { [TOKEN]: "admin" },
      signIn: directory.signIn,
      seed,
      faults: { latencyMs: LATENCY_MS },
    });
    const config = join(dir, "usersync.yaml");
    await writeFile(
      config,
      JSON.stringify({
        target: { baseUrl: emulator.url, allowInsecureHttp: true },
        source: { ...directory.source, changes: { mode: "changes", fullEvery: 0 } },
        // 10% (figure 19's), or room for (c)'s fifty leavers in a tiny directory.
        policy: { deletions: "revoke", maxDeletes: PEOPLE >= 1000 ? "10%" : 100 },
        state: { file: join(dir, "state.json") },
        execution: { requestsPerSecond: 10_000, concurrency: 32 },
        logging: { level: "warn", format: "json" },
      }),
    );
    const env = { USERSYNC_TOKEN: TOKEN, ...directory.env };
    const rows = [];
    const results = { seededMappings: seed.mappings.length, seedMs: round(seedMs, 0) };
    const measure = async (name) => {
      const before = directory.counts();
      emulator.resetLog();
      const run = await cli(["apply", "--config", config, "--yes"], env, dir);
      if (run.code !== 0) throw new Error(`${name}: exit ${run.code}\n${run.stderr.slice(-3000)}`);
      const after = directory.counts();
      const log = emulator.requestLog();
      const r = {
        directory: after.directory - before.directory,
        tokens: after.tokens - before.tokens,
        service: log.length,
        writes: log.filter((e) => e.method !== "GET").length,
        wallMs: round(run.wallMs, 0),
        cpuMs: round(run.cpuMs, 0),
        rssMiB: round(run.rssMiB, 0),
        load: round(run.load, 1),
        read: /^Read .*$/m.exec(run.stdout)?.[0] ?? "",
      };
      results[name] = r;
      rows.push([
        name,
        r.directory,
        r.tokens,
        `${r.service} (${r.writes} writes)`,
        r.directory + r.tokens + r.service,
        `${round(run.wallMs / 1000, 2)} s`,
        `${round(run.cpuMs / 1000, 2)} s`,
        `${r.rssMiB} MiB`,
        r.load,
        r.read,
      ]);
      return run;
    };
    const revoked = (id) => {
      const m = emulator.state().mappings.find((x) => x.email?.toLowerCase() === directory.emailOf(id));
      return m === undefined || m.groups.length === 0;
    };
    await measure("first run (whole; nothing to create)");
    await measure("(a) nothing changed");
    const people = directory.people;
    const leaver = people[7];
    const changedAt = performance.now();
    await directory.leave([leaver]);
    await measure("(b) one leaver");
    const revokedMs = performance.now() - changedAt;
    results.leaverRevoked = revoked(leaver);
    results.timeToRevokeMs = round(revokedMs, 0);
    await directory.leave(people.slice(100, 150));
    await directory.rename(people.slice(200, 225));
    await directory.move(people.slice(300, 325));
    await measure("(c) a hundred changes");
    results.hundredRevoked = people.slice(100, 150).filter(revoked).length;
    // Nothing left that a whole read and a whole listing would do (not measured).
    const check = await cli(
      ["plan", "--config", config, "--detailed-exitcode"],
      {
        ...env,
        USERSYNC_SOURCE_CHANGES_MODE: "whole",
      },
      dir,
    );
    results.wholePlanAfter = check.code === 0 ? "nothing to do" : `exit ${check.code}`;
    if (check.code !== 0) console.log(check.stdout.slice(0, 4000));
    const label = directory.name === "LDAP" ? "binds" : "token requests";
    printTable(
      `20. Changes-only runs (${directory.name}, the directory and the service emulator adding ${LATENCY_MS} ms a request each), ${PEOPLE.toLocaleString("en")} people in ${GROUPS} groups`,
      [
        "run",
        `${directory.name} requests`,
        label,
        "service requests",
        "in all",
        "wall",
        "CPU (CLI)",
        "peak RSS (CLI)",
        "load",
        "how it read",
      ],
      rows,
    );
    console.log(
      `time from the leaver's change in ${directory.name} to their access removed: ${round(revokedMs / 1000, 2)} s ` +
        `(the run alone; on the 5-minute schedule add up to one interval); access removed: ${results.leaverRevoked}; ` +
        `the hundred changes' leavers revoked: ${results.hundredRevoked} of 50; seeding read ${round(seedMs / 1000, 1)} s; ` +
        `a whole plan after (c): ${results.wholePlanAfter}`,
    );
    const by =
      SOURCE === "ldap" && process.env.BENCH_LDAP_CHANGES_BY ? `-${process.env.BENCH_LDAP_CHANGES_BY}` : "";
    await writeResult(`changes-${SOURCE}${by}`, {
      source: SOURCE,
      people: PEOPLE,
      groups: GROUPS,
      latencyMs: LATENCY_MS,
      ...(SOURCE === "ldap"
        ? {
            pageSize: Number(process.env.BENCH_LDAP_PAGE_SIZE ?? 500),
            changesBy: process.env.BENCH_LDAP_CHANGES_BY ?? "auto",
          }
        : {}),
      ...results,
    });
  } finally {
    await emulator?.close();
    await directory.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
