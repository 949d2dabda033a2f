// Figure 5, engine overhead: the same 5,000-user apply (10,000 requests) against a zero-latency
// emulator, by the engine (list, plan, DAG executor, client with retries and limits) and by a
// bare undici loop POSTing the same bodies at the same concurrency. Ratio of requests per second,
// side by side in each run (they alternate, a fresh emulator each), median of 3.
// Target: the engine reaches at least 0.7 of the bare loop.
import {
  applyInProcess,
  bareLoop,
  benchSeed,
  desiredUsers,
  median,
  printTable,
  round,
  startEmulatorWorker,
  writeResult,
} from "./lib.mjs";

const USERS = 5000;
const CONCURRENCY = 32;
const RUNS = 3;
const TARGET = 0.7;

async function withEmulator(fn) {
  const emulator = await startEmulatorWorker({ seed: benchSeed() });
  try {
    return await fn(emulator.url);
  } finally {
    await emulator.close();
  }
}

const runs = [];
for (let r = 0; r < RUNS; r++) {
  const engine = await withEmulator((url) =>
    applyInProcess({ url, users: desiredUsers(USERS), concurrency: CONCURRENCY }),
  );
  const bare = await withEmulator((url) =>
    bareLoop({ url, users: desiredUsers(USERS), concurrency: CONCURRENCY }),
  );
  runs.push({
    engineRps: engine.requests / engine.seconds,
    bareRps: bare.requests / bare.seconds,
    ratio: engine.requests / engine.seconds / (bare.requests / bare.seconds),
    engine,
    bare,
  });
}
const ratio = median(runs.map((r) => r.ratio));
printTable(
  `5. Engine overhead: ${USERS.toLocaleString("en")} users, zero latency, concurrency ${CONCURRENCY} (median of ${RUNS})`,
  ["sender", "requests", "requests/s", "ratio", "target"],
  [
    [
      "usersync engine",
      runs[0].engine.requests.toLocaleString("en"),
      round(median(runs.map((r) => r.engineRps)), 0),
      round(ratio, 2),
      `>= ${TARGET}: ${ratio >= TARGET ? "met" : "MISSED"}`,
    ],
    [
      "bare undici loop",
      runs[0].bare.requests.toLocaleString("en"),
      round(median(runs.map((r) => r.bareRps)), 0),
      1,
      "",
    ],
  ],
);
await writeResult("engine-overhead", { users: USERS, concurrency: CONCURRENCY, ratio, target: TARGET, runs });
