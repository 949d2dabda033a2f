// Figure 4, apply throughput: new built-in users (a credentials create and a mapping create each)
// against the emulator with 20 ms latency, at concurrency 1, 8, 32 and 64. Achieved requests per
// second divided by the bound concurrency / latency. 5,000 users (10,000 requests) at 32 and 64;
// fewer at 1 and 8 so a run stays near 6 s (the ratio does not depend on the count). Median of 3,
// a fresh emulator per run. Passwords off: this is the engine's figure, not the disk's.
// For reference, a bare undici loop (no engine at all) at each concurrency in the same runs: the
// fixed cost of a request besides the injected latency (timers, HTTP on both ends) caps what
// any sender reaches, and the engine's share is best read against it.
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

const LATENCY_MS = 20;
const RUNS = 3;
const USERS_AT = { 1: 150, 8: 1000, 32: 5000, 64: 5000 };
const TARGET = { concurrency: 32, share: 0.9 };

async function withEmulator(fn) {
  const emulator = await startEmulatorWorker({ seed: benchSeed(), faults: { latencyMs: LATENCY_MS } });
  try {
    return await fn(emulator.url);
  } finally {
    await emulator.close();
  }
}

const rows = [];
const results = [];
for (const [c, count] of Object.entries(USERS_AT).map(([c, n]) => [Number(c), n])) {
  const runs = [];
  const bare = [];
  for (let r = 0; r < RUNS; r++) {
    runs.push(
      await withEmulator((url) => applyInProcess({ url, users: desiredUsers(count), concurrency: c })),
    );
    bare.push(await withEmulator((url) => bareLoop({ url, users: desiredUsers(count), concurrency: c })));
  }
  const bound = c / (LATENCY_MS / 1000);
  const rps = median(runs.map((x) => x.requests / x.seconds));
  const share = rps / bound;
  const bareShare = median(bare.map((x) => x.requests / x.seconds)) / bound;
  const failed = runs.reduce((n, x) => n + x.counts.failed, 0);
  const verdict =
    c === TARGET.concurrency
      ? share >= TARGET.share
        ? `>= ${TARGET.share}: met`
        : `>= ${TARGET.share}: MISSED`
      : "";
  results.push({
    concurrency: c,
    users: count,
    requests: runs[0].requests,
    boundRps: bound,
    medianRps: rps,
    shareOfBound: share,
    bareLoopShareOfBound: bareShare,
    failedSteps: failed,
    runs,
  });
  rows.push([
    c,
    count.toLocaleString("en"),
    runs[0].requests.toLocaleString("en"),
    `${round(rps, 0)}/s`,
    `${round(bound, 0)}/s`,
    round(share, 2),
    round(bareShare, 2),
    verdict,
  ]);
}
printTable(
  `4. Apply throughput, ${LATENCY_MS} ms latency (median of ${RUNS})`,
  [
    "concurrency",
    "users",
    "requests",
    "achieved",
    "bound c/latency",
    "share of bound",
    "bare loop share",
    "target",
  ],
  rows,
);
await writeResult("apply-throughput", { latencyMs: LATENCY_MS, results });
