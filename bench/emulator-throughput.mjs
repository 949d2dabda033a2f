// Throughput of the local emulator at zero latency: 20,000 mixed requests (list pages, single
// GETs, creates) at concurrency 32 over a keep-alive undici Pool, median of 3 runs, against an
// store of 1,000 mappings and against one of 100,000. The emulator runs in a worker thread so the
// client's own work is not counted against it (on 2 cores the two then use one core each). Prints requests/second and writes
// bench/results/emulator-throughput.json. Run `npm run build` first (or set USERSYNC_DIST to
// another build directory).
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { Pool } from "undici";

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(process.env.USERSYNC_DIST ?? join(here, "..", "dist"));

if (!isMainThread) {
  const { startEmulator } = await import(pathToFileURL(join(dist, "emulator", "index.js")).href);
  const n = workerData.mappings;
  const seed = n
    ? {
        groups: [{ id: "all" }],
        mappings: Array.from({ length: n }, (_, i) => ({
          id: `m-${i}`,
          authenticationId: `a-${i}`,
          groups: ["all"],
        })),
      }
    : undefined;
  const emu = await startEmulator({ seed });
  parentPort.postMessage({ url: emu.url });
  parentPort.once("message", async () => {
    await emu.close();
    parentPort.postMessage({ closed: true });
  });
}

/** Starts the emulator in a worker; resolves to its url and a close function. */
async function startInWorker(mappings) {
  const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { mappings } });
  const message = () =>
    new Promise((res, rej) => {
      worker.once("message", res);
      worker.once("error", rej);
    });
  const { url } = await message();
  return {
    url,
    close: async () => {
      worker.postMessage("close");
      await message();
      await worker.terminate();
    },
  };
}

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const CONCURRENCY = 32;
const RUNS = 3;
const headers = { authorization: "Bearer dev-token" };
const jsonApi = { ...headers, "content-type": "application/vnd.gooddata.api+json" };

function requestFor(i, run) {
  switch (i % 4) {
    case 0:
      return {
        method: "POST",
        path: "/api/v1/entities/users",
        headers: jsonApi,
        body: JSON.stringify({
          data: {
            id: `bench-${run}-${i}`,
            type: "user",
            attributes: { authenticationId: `sub-${run}-${i}` },
          },
        }),
      };
    case 1:
      return { method: "GET", path: `/api/v1/entities/users/m-${i % 1000}`, headers };
    default:
      return {
        method: "GET",
        path: `/api/v1/entities/users?page=${i % 50}&size=20&include=userGroups&metaInclude=page`,
        headers,
      };
  }
}

async function once(mappings, run) {
  const emu = await startInWorker(mappings);
  const pool = new Pool(emu.url, { connections: CONCURRENCY, pipelining: 1 });
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        const res = await pool.request(requestFor(next++, run));
        await res.body.text();
        if (res.statusCode >= 400) failures++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  await emu.close();
  return { rps: REQUESTS / seconds, failures };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (isMainThread) await main();

async function main() {
  const scenarios = { store1k: 1000, store100k: 100_000 };
  const results = {
    requests: REQUESTS,
    concurrency: CONCURRENCY,
    runs: RUNS,
    node: process.version,
    scenarios: {},
  };
  for (const [name, seed] of Object.entries(scenarios)) {
    const runs = [];
    for (let r = 0; r < RUNS; r++) runs.push(await once(seed, r));
    const rps = median(runs.map((x) => x.rps));
    results.scenarios[name] = {
      medianRps: Math.round(rps),
      runsRps: runs.map((x) => Math.round(x.rps)),
      failures: runs.reduce((n, x) => n + x.failures, 0),
    };
    console.log(
      `${name}: ${Math.round(rps)} requests/s (median of ${RUNS}; runs ${runs.map((x) => Math.round(x.rps)).join(", ")}; failed answers ${results.scenarios[name].failures})`,
    );
  }
  const out = join(here, "results", "emulator-throughput.json");
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, JSON.stringify(results, null, 2) + "\n");
  console.log(`written ${out}`);
}
