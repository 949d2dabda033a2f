// Figure 12, many organizations (issue 31): ORGS organizations of PEOPLE people each, all taken
// from one shared CSV by group (targets[].select.groups), synced by one process
// (`apply --all-targets`: the source read once, the organizations one after another) and by ORGS
// processes at once (`apply --target-index i`, as the pods of an Indexed Job with parallelism
// ORGS: each reads the whole source). Two runs each: the hourly run of organizations already in
// sync (the emulators seeded with their people), and a first sync of FIRST people per organization.
// Wall time, requests (the runs' own usersync_requests metrics), peak RSS (GNU time's %M of each
// process: the one process, and the largest and the sum of the ORGS processes).
//   node bench/multi-org.mjs [ORGS] [PEOPLE] [FIRST]      (default 20 5000 500)
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dist, here, printTable, round, writeResult } from "./lib.mjs";

const [ORGS, PEOPLE, FIRST] = [20, 5000, 500].map((d, i) => Number(process.argv[2 + i] ?? d));
const orgName = (i) => `org-${String(i + 1).padStart(2, "0")}`;
const CLI = join(dist, "cli.js");

/** Starts the emulators (multi-org-emulators.mjs); resolves to their URLs and a stop function. */
function startEmulators(people, seeded) {
  const child = spawn(
    process.execPath,
    [join(here, "multi-org-emulators.mjs"), ORGS, people, seeded ? 1 : 0],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("\n"))
        resolve({
          urls: JSON.parse(out.split("\n")[0]),
          stop: () => new Promise((r) => (child.on("close", r), child.stdin.end())),
        });
    });
    child.on("error", reject);
  });
}

/** One CLI run under GNU time: exit code, wall ms, peak RSS in MiB. */
function cli(args, { cwd, env }) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn("/usr/bin/time", ["-f", "maxrss=%M", process.execPath, CLI, ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const rss = Number(/maxrss=(\d+)/.exec(err)?.[1] ?? NaN) / 1024;
      resolve({ code, ms: performance.now() - started, rssMiB: rss, tail: err.slice(-600) });
    });
  });
}

async function writeSetup(dir, people, urls) {
  const rows = ["email,id,displayName,groups"];
  for (let i = 0; i < ORGS; i++)
    for (let j = 0; j < people; j++) {
      const org = orgName(i);
      const n = String(j + 1).padStart(6, "0");
      rows.push(`${org}-${n}@bench.example,${org}-${n},Person ${org} ${n},${org}`);
    }
  await writeFile(join(dir, "people.csv"), `${rows.join("\n")}\n`);
  const targets = urls
    .map(
      (url, i) =>
        `  - { name: ${orgName(i)}, baseUrl: "${url}", tokenEnv: TOKEN_${i}, select: { groups: [${orgName(i)}] } }`,
    )
    .join("\n");
  await writeFile(
    join(dir, "usersync.yaml"),
    `source: { desired: people.csv }\nidentity: { passwords: none }\nexecution: { requestsPerSecond: 10000 }\noutput: { metricsFile: out/metrics.prom }\nlogging: { level: warn, format: json }\ntargets:\n${targets}\n`,
  );
  return Object.fromEntries(urls.map((_, i) => [`TOKEN_${i}`, `token-${orgName(i)}`]));
}

/** The requests of the last runs, from each organization's metrics file. */
async function requests(dir) {
  let sum = 0;
  for (const f of await readdir(join(dir, "out"))) {
    const m = /^usersync_requests\{[^}]*\} (\d+)$/m.exec(await readFile(join(dir, "out", f), "utf8"));
    sum += Number(m?.[1] ?? 0);
  }
  return sum;
}

async function measure(label, people, seeded) {
  const rows = [];
  for (const mode of ["one process", `${ORGS} processes`]) {
    const dir = await mkdtemp(join(tmpdir(), "usersync-multi-org-bench-"));
    const emulators = await startEmulators(people, seeded);
    try {
      const env = await writeSetup(dir, people, emulators.urls);
      const names = emulators.urls.map((_, i) => orgName(i)).join(",");
      const started = performance.now();
      const runs =
        mode === "one process"
          ? [await cli(["apply", "--all-targets", "--yes"], { cwd: dir, env })]
          : await Promise.all(
              emulators.urls.map((_, i) =>
                cli(["apply", "--yes", "--target-index", String(i), "--target-list", names], {
                  cwd: dir,
                  env,
                }),
              ),
            );
      const wall = performance.now() - started;
      const failed = runs.filter((r) => r.code !== 0);
      if (failed.length > 0) throw new Error(`${mode}: exit ${failed[0].code}\n${failed[0].tail}`);
      rows.push({
        run: label,
        mode,
        wallS: round(wall / 1000, 2),
        requests: await requests(dir),
        peakRssMiB: round(Math.max(...runs.map((r) => r.rssMiB)), 0),
        sumRssMiB: round(
          runs.reduce((s, r) => s + r.rssMiB, 0),
          0,
        ),
      });
    } finally {
      await emulators.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }
  return rows;
}

const rows = [
  ...(await measure(`hourly, ${ORGS} x ${PEOPLE} in sync`, PEOPLE, true)),
  ...(await measure(`first sync, ${ORGS} x ${FIRST} new`, FIRST, false)),
];
printTable(
  `Figure 12: ${ORGS} organizations, one process --all-targets vs ${ORGS} processes`,
  ["run", "mode", "wallS", "requests", "peakRssMiB", "sumRssMiB"],
  rows.map((r) => [r.run, r.mode, r.wallS, r.requests, r.peakRssMiB, r.sumRssMiB]),
);
await writeResult("multi-org", { orgs: ORGS, people: PEOPLE, first: FIRST, rows });
