// Shared pieces of the benchmarks: the build output, medians, tables, result files, child-process
// measurements (peak RSS is per process, so each measured run gets its own), the emulator in a
// worker thread (so its work is not counted against the engine's event loop), and one in-process
// apply the way the CLI does it. Benchmarks import the build: run `npm run build` first
// (`npm run bench` does), or set USERSYNC_DIST.
import { spawn } from "node:child_process";
import { createWriteStream, writeFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { Pool } from "undici";

export const here = dirname(fileURLToPath(import.meta.url));
export const dist = resolve(process.env.USERSYNC_DIST ?? join(here, "..", "dist"));
export const TOKEN = "dev-token";

/** `import()` of a module of the build, e.g. `fromDist("plan/index.js")`. */
export const fromDist = (rel) => import(pathToFileURL(join(dist, rel)).href);

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
export const round = (x, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Prints a Markdown table (it reads fine in a terminal and pastes into docs/benchmarks.md). */
export function printTable(title, columns, rows) {
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(" | ")} |`;
  console.log(`\n### ${title}\n`);
  console.log(line(columns));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of rows) console.log(line(r));
  console.log("");
}

/** Writes bench/results/<name>.json with the machine it ran on. */
export async function writeResult(name, data) {
  const out = join(here, "results", `${name}.json`);
  await mkdir(dirname(out), { recursive: true });
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    node: process.version,
    platform: process.platform,
  };
  await writeFile(
    out,
    JSON.stringify({ name, date: new Date().toISOString(), machine, ...data }, null, 2) + "\n",
  );
  console.log(`written ${out}`);
}

/**
 * Runs `node script ...args` and resolves to the JSON object the child printed on its last
 * stdout line (the child measures itself: `childReport`).
 */
export function measureInChild(script, args, nodeArgs = []) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const last = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0)
        return reject(new Error(`${script} ${args.join(" ")} exited ${code}: ${out.slice(-2000)}`));
      try {
        resolvePromise(JSON.parse(last));
      } catch {
        reject(new Error(`${script} printed no result: ${out.slice(-2000)}`));
      }
    });
  });
}

/**
 * In a measuring child, before the measured part: collects garbage (when run with
 * `--expose-gc`) and resets the process's peak RSS (Linux: `/proc/self/clear_refs`), so the peak
 * `childReport` gives is that of the measured part, with what is still alive before it (its
 * inputs) but not the garbage of preparing them. Returns false where the peak cannot be reset.
 */
export function resetPeakRss() {
  globalThis.gc?.();
  try {
    writeFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
}

/** `runs` measurements of `node nodeArgs script args`, one child process each, one after another. */
export async function measureRuns(script, args, { runs, nodeArgs = [] }) {
  const measured = [];
  for (let r = 0; r < runs; r++) measured.push(await measureInChild(script, args, nodeArgs));
  return measured;
}

/** Writes the strings of `chunks` (any iterable) to `file`, waiting for the stream to drain. */
export async function writeStreamed(file, chunks) {
  const out = createWriteStream(file);
  for (const chunk of chunks)
    if (!out.write(chunk)) await new Promise((resolveDrain) => out.once("drain", resolveDrain));
  await new Promise((resolveEnd, reject) => out.end((err) => (err ? reject(err) : resolveEnd())));
}

/** In a measuring child: CPU ms since `cpuStart`, and the process's peak RSS so far, in MiB. */
export function childReport(extra, cpuStart) {
  const cpu = process.cpuUsage(cpuStart);
  const report = {
    cpuMs: round((cpu.user + cpu.system) / 1000, 1),
    maxRssMiB: round(process.resourceUsage().maxRSS / 1024, 1),
    ...extra,
  };
  console.log(JSON.stringify(report));
}

/** `count` desired users `u000001@bench.example` … with one group. */
export function desiredUsers(count, o = {}) {
  const prefix = o.prefix ?? "u";
  return Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(7, "0");
    return {
      email: `${prefix}${n}@bench.example`,
      id: `${prefix}${n}`,
      idDerived: false,
      displayName: `User ${n}`,
      groups: ["all"],
      identity: "builtin",
      state: "present",
      source: { file: "users.csv", line: i + 2 },
    };
  });
}

/** The emulator (`startEmulator(options)`) in a worker thread; `counters()` and `close()` go over messages. */
export async function startEmulatorWorker(options) {
  const worker = new Worker(join(here, "emulator-worker.mjs"), { workerData: { dist, options } });
  const pending = [];
  worker.on("message", (m) => pending.shift()?.resolve(m));
  worker.on("error", (e) => pending.shift()?.reject(e));
  const ask = (message) =>
    new Promise((res, rej) => {
      pending.push({ resolve: res, reject: rej });
      if (message !== undefined) worker.postMessage(message);
    });
  const { url } = await ask(undefined);
  return {
    url,
    counters: async () => (await ask({ op: "counters" })).counters,
    close: async () => {
      await ask({ op: "close" });
      await worker.terminate();
    },
  };
}

/** Seed of an emulator holding the group every bench user is in (plus `mappings` synced users). */
export function benchSeed(mappings = 0) {
  return {
    groups: [{ id: "all", name: "All" }],
    mappings: Array.from({ length: mappings }, (_, i) => ({
      id: `m-${i}`,
      authenticationId: `a-${i}`,
      groups: ["all"],
    })),
  };
}

/**
 * One `usersync apply` of `users` in-process, as the CLI runs it (list, plan, apply), without
 * passwords (policy `none`: the figure is the engine's, not the disk's). Times only the apply.
 * `actualFor` may change the listed state before planning (e.g. `bulkMembership: false`);
 * `planRate` is the rate the plan's estimate assumes; `verify` lists and plans again after the
 * apply and throws unless nothing is left to do.
 */
export async function applyInProcess(o) {
  const { url, users, concurrency, requestsPerSecond = 0, retries } = o;
  const [{ createClient, listActualState }, { applyPlan }, { plan, defaultPolicy }, { createLogger }] =
    await Promise.all([
      fromDist("service/index.js"),
      fromDist("apply/index.js"),
      fromDist("plan/index.js"),
      fromDist("logging.js"),
    ]);
  const client = await createClient({
    baseUrl: url,
    token: TOKEN,
    profile: "v1",
    concurrency,
    requestsPerSecond,
    ...(retries !== undefined ? { retries } : {}),
    logger: createLogger({ level: "silent" }),
  });
  try {
    const policy = { ...defaultPolicy, passwords: "none" };
    const planFor = (actual) =>
      plan({
        desired: { users, groups: [], files: ["users.csv"] },
        actual,
        policy,
        profile: client.profile,
        limits: { concurrency, requestsPerSecond: o.planRate ?? 10_000 },
      });
    const p = planFor((o.actualFor ?? ((a) => a))(await listActualState(client)));
    const none = { source: "none", passwordFor: async () => undefined, close: async () => {} };
    const before = client.stats();
    const started = performance.now();
    const result = await applyPlan({ plan: p, client, concurrency, passwords: none });
    const seconds = (performance.now() - started) / 1000;
    const after = client.stats();
    if (o.verify) {
      const left = planFor(await listActualState(client)).steps.length;
      if (result.counts.failed > 0 || left > 0)
        throw new Error(`${result.counts.failed} steps failed, ${left} left to do after the apply`);
    }
    return {
      seconds,
      steps: p.steps.length,
      estimate: p.estimate,
      requests: after.requests - before.requests,
      retries: after.retries - before.retries,
      throttled: after.throttled - before.throttled,
      counts: result.counts,
    };
  } finally {
    await client.close();
  }
}

/**
 * The reference sender: per user a credentials create then a mapping create (the bodies the
 * engine sends, encoded by the same v1 codec), `concurrency` users at a time, nothing else.
 */
export async function bareLoop({ url, users, concurrency }) {
  const { v1Codec } = await fromDist("service/profile-v1.js");
  const pool = new Pool(url, { connections: concurrency, pipelining: 1 });
  const auth = { authorization: `Bearer ${TOKEN}` };
  let next = 0;
  let requests = 0;
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < users.length) {
          const u = users[next++];
          const idp = await pool.request({
            method: "POST",
            path: "/api/v1/auth/users",
            headers: { ...auth, "content-type": "application/json" },
            body: JSON.stringify({ email: u.email, displayName: u.displayName }),
          });
          const created = await idp.body.json();
          const mapping = {
            id: u.id,
            authenticationId: created.authenticationId,
            email: u.email,
            groups: u.groups,
          };
          const res = await pool.request({
            method: "POST",
            path: "/api/v1/entities/users",
            headers: { ...auth, "content-type": "application/vnd.gooddata.api+json" },
            body: JSON.stringify(v1Codec.encodeMapping(mapping)),
          });
          await res.body.text();
          requests += 2;
          if (idp.statusCode !== 200 || res.statusCode !== 201)
            throw new Error(`bare loop: answers ${idp.statusCode}, ${res.statusCode}`);
        }
      }),
    );
    return { seconds: (performance.now() - started) / 1000, requests };
  } finally {
    await pool.close();
  }
}
