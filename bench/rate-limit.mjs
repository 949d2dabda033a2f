// Figure 7, under a rate limit: the emulator's fixed window of R requests per second (R = 5, 20,
// 100), its headers sent as X-RateLimit-Reset in delta seconds and as epoch seconds (the GitHub
// convention, windows aligned to the clock). 5 x R new users (10 x R requests, about 10 s) at
// concurrency 32, the client's own requests-per-second limit off so only the headers pace it.
// Figures: apply wall time divided by (requests / R), and the 429 answers received during the
// apply (the listing before it has already seen the headers, so every one counts). Median of 3,
// a fresh emulator each. Target: at most 1.1, and no 429 once the headers have been seen.
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

const LIMITS = [5, 20, 100];
const MODES = ["delta", "epoch-seconds"];
const CONCURRENCY = 32;
const RUNS = 3;
const TARGET = 1.1;

async function once(limit, mode) {
  const emulator = await startEmulatorWorker({
    seed: benchSeed(),
    faults: { rateLimit: { limit, windowSeconds: 1, resetHeader: mode } },
  });
  try {
    const res = await applyInProcess({
      url: emulator.url,
      users: desiredUsers(5 * limit),
      concurrency: CONCURRENCY,
    });
    const ideal = res.steps / limit;
    return { ...res, ideal, ratio: res.seconds / ideal };
  } finally {
    await emulator.close();
  }
}

const rows = [];
const results = [];
let allMet = true;
for (const mode of MODES) {
  for (const limit of LIMITS) {
    const runs = [];
    for (let r = 0; r < RUNS; r++) runs.push(await once(limit, mode));
    const ratio = median(runs.map((r) => r.ratio));
    const max429 = Math.max(...runs.map((r) => r.throttled));
    const ok = ratio <= TARGET && max429 === 0;
    allMet &&= ok;
    results.push({ mode, limit, ratio, max429, runs });
    rows.push([
      mode,
      `${limit}/s`,
      runs[0].steps.toLocaleString("en"),
      `${round(median(runs.map((r) => r.seconds)), 2)} s`,
      `${runs[0].ideal} s`,
      round(ratio, 2),
      runs.map((r) => r.throttled).join(", "),
      `<= ${TARGET}, no 429: ${ok ? "met" : "MISSED"}`,
    ]);
  }
}
printTable(
  `7. Under a rate limit (fixed window of R requests/s), concurrency ${CONCURRENCY} (median of ${RUNS})`,
  ["X-RateLimit-Reset", "R", "requests", "wall (median)", "requests / R", "ratio", "429s per run", "target"],
  rows,
);
await writeResult("rate-limit", { concurrency: CONCURRENCY, target: TARGET, allMet, results });
