// Figure 6, baseline: the same 5,000-user onboarding done the way the service's docs show it
// (one request after another: create the IdP user with a password, then map it) against
// `usersync apply` (the built CLI, generated passwords written to a credentials file), on an
// emulator with 5 ms latency. Ratio of wall times. The CLI runs with its default concurrency (16)
// and `execution.requestsPerSecond` raised to 10,000: the default of 50/s is a courtesy to a
// real service and would make the CLI the slower one here (10,000 requests / 50 = 200 s).
// The baseline takes about a minute, so it runs once; the CLI, median of 3.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "undici";
import {
  benchSeed,
  desiredUsers,
  dist,
  fromDist,
  median,
  printTable,
  round,
  startEmulatorWorker,
  TOKEN,
  writeResult,
} from "./lib.mjs";

const USERS = 5000;
const LATENCY_MS = 5;
const CLI_RUNS = 3;
const { v1Codec } = await fromDist("service/profile-v1.js");

async function withEmulator(fn) {
  const emulator = await startEmulatorWorker({ seed: benchSeed(), faults: { latencyMs: LATENCY_MS } });
  try {
    return await fn(emulator);
  } finally {
    await emulator.close();
  }
}

/** The documented way: for each user, POST the credentials, then POST the mapping. */
async function documentedWay(url, users) {
  const pool = new Pool(url, { connections: 1 });
  const auth = { authorization: `Bearer ${TOKEN}` };
  const started = performance.now();
  try {
    for (const u of users) {
      const password = randomBytes(15).toString("base64url");
      const idp = await pool.request({
        method: "POST",
        path: "/api/v1/auth/users",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ email: u.email, password, displayName: u.displayName }),
      });
      const { authenticationId } = await idp.body.json();
      const body = v1Codec.encodeMapping({ id: u.id, authenticationId, email: u.email, groups: u.groups });
      const res = await pool.request({
        method: "POST",
        path: "/api/v1/entities/users",
        headers: { ...auth, "content-type": "application/vnd.gooddata.api+json" },
        body: JSON.stringify(body),
      });
      await res.body.text();
      if (res.statusCode !== 201) throw new Error(`baseline: mapping answered ${res.statusCode}`);
    }
    return (performance.now() - started) / 1000;
  } finally {
    await pool.close();
  }
}

/** `usersync apply --yes` as a user runs it; wall time of the whole process. */
async function cliApply(url, dir, run) {
  const args = [
    join(dist, "cli.js"),
    "apply",
    "--yes",
    "--config",
    join(dir, "usersync.yaml"),
    "--desired",
    join(dir, "users.csv"),
    "--base-url",
    url,
    "--credentials-file",
    join(dir, `credentials-${run}.csv`),
  ];
  const started = performance.now();
  const code = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH, USERSYNC_TOKEN: TOKEN },
      stdio: ["ignore", "ignore", "ignore"],
    });
    child.on("error", reject);
    child.on("close", resolve);
  });
  if (code !== 0) throw new Error(`usersync apply exited ${code}`);
  return (performance.now() - started) / 1000;
}

const users = desiredUsers(USERS);
const dir = await mkdtemp(join(tmpdir(), "usersync-bench-baseline-"));
try {
  await writeFile(
    join(dir, "users.csv"),
    ["email,id,displayName,groups", ...users.map((u) => `${u.email},${u.id},${u.displayName},all`)].join(
      "\n",
    ) + "\n",
  );
  await writeFile(
    join(dir, "usersync.yaml"),
    "execution:\n  requestsPerSecond: 10000\nlogging:\n  level: warn\n  format: json\n",
  );
  const baseline = await withEmulator((e) => documentedWay(e.url, users));
  const cli = [];
  for (let r = 0; r < CLI_RUNS; r++) cli.push(await withEmulator((e) => cliApply(e.url, dir, r)));
  const cliSeconds = median(cli);
  const ratio = baseline / cliSeconds;
  printTable(
    `6. Baseline: ${USERS.toLocaleString("en")}-user onboarding, ${LATENCY_MS} ms latency`,
    ["way", "runs", "wall", "speed-up"],
    [
      [
        "usersync apply (CLI, concurrency 16, whole process)",
        CLI_RUNS,
        `${round(cliSeconds, 2)} s`,
        `${round(ratio, 1)}x`,
      ],
      ["documented way (sequential, create then map)", 1, `${round(baseline, 2)} s`, "1x"],
    ],
  );
  await writeResult("baseline", {
    users: USERS,
    latencyMs: LATENCY_MS,
    baselineSeconds: baseline,
    cliSeconds: cli,
    speedUp: ratio,
  });
} finally {
  await rm(dir, { recursive: true, force: true });
}
