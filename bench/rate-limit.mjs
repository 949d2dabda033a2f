// Figure 7, under a rate limit: the emulator's fixed window of 100 requests per second with the
// X-RateLimit-* headers; 1,000 new users (2,000 requests) at concurrency 32, the client's own
// requests-per-second limit off so only the headers pace it. Figures: apply wall time divided by
// (requests / limit), and the 429 answers received. Median of 3, a fresh emulator each.
// Target: at most 1.1, and zero 429s once the headers have been seen.
import {
  applyInProcess,
  benchSeed,
  desiredUsers,
  median,
  printTable,
  round,
  startEmulatorWorker,
  writeResult,
} from "./lib.mjs";

const USERS = 1000;
const LIMIT = 100;
const CONCURRENCY = 32;
const RUNS = 3;
const TARGET = 1.1;

const runs = [];
for (let r = 0; r < RUNS; r++) {
  const emulator = await startEmulatorWorker({
    seed: benchSeed(),
    faults: { rateLimit: { limit: LIMIT, windowSeconds: 1 } },
  });
  try {
    const res = await applyInProcess({
      url: emulator.url,
      users: desiredUsers(USERS),
      concurrency: CONCURRENCY,
    });
    const counters = await emulator.counters();
    const ideal = res.steps / LIMIT;
    runs.push({ ...res, ideal, ratio: res.seconds / ideal, emulator429: counters.byStatus["429"] ?? 0 });
  } finally {
    await emulator.close();
  }
}
const ratio = median(runs.map((r) => r.ratio));
const max429 = Math.max(...runs.map((r) => r.throttled));
const ok = ratio <= TARGET && max429 === 0;
printTable(
  `7. Under a rate limit of ${LIMIT} requests/s (fixed window, X-RateLimit-* headers), concurrency ${CONCURRENCY} (median of ${RUNS})`,
  ["requests", "wall (median)", "requests / limit", "ratio", "429s per run", "target"],
  [
    [
      runs[0].steps.toLocaleString("en"),
      `${round(median(runs.map((r) => r.seconds)), 2)} s`,
      `${runs[0].ideal} s`,
      round(ratio, 2),
      runs.map((r) => r.throttled).join(", "),
      `<= ${TARGET}, no 429: ${ok ? "met" : "MISSED"}`,
    ],
  ],
);
await writeResult("rate-limit", {
  users: USERS,
  limit: LIMIT,
  concurrency: CONCURRENCY,
  ratio,
  max429,
  target: TARGET,
  runs,
});
