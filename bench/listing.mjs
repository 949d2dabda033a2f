// Figure 3, listing: 100,000 mappings from the emulator with 5 ms latency per request. The
// client's concurrent paging (first page, then the rest at once within its concurrency) against
// sequential paging (the same client with concurrency 1: one page after another). Median of 3;
// the ratio is measured side by side (the two alternate within each run).
import {
  benchSeed,
  fromDist,
  median,
  printTable,
  round,
  startEmulatorWorker,
  TOKEN,
  writeResult,
} from "./lib.mjs";

const MAPPINGS = 100_000;
const LATENCY_MS = 5;
const RUNS = 3;
const CONCURRENCY = 16;

const { createClient } = await fromDist("service/index.js");
const { createLogger } = await fromDist("logging.js");
// Exactly the seeded mappings (no token owner added), so the count below is the seed's.
const emulator = await startEmulatorWorker({
  seed: benchSeed(MAPPINGS),
  mapTokenOwners: false,
  faults: { latencyMs: LATENCY_MS },
});

async function list(concurrency) {
  const client = await createClient({
    baseUrl: emulator.url,
    token: TOKEN,
    profile: "v1",
    concurrency,
    requestsPerSecond: 0,
    logger: createLogger({ level: "silent" }),
  });
  try {
    const started = performance.now();
    const mappings = await client.listMappings();
    const seconds = (performance.now() - started) / 1000;
    if (mappings.length !== MAPPINGS)
      throw new Error(`listed ${mappings.length} mappings, expected ${MAPPINGS}`);
    return { seconds, requests: client.stats().requests };
  } finally {
    await client.close();
  }
}

const runs = [];
try {
  for (let r = 0; r < RUNS; r++) {
    const concurrent = await list(CONCURRENCY);
    const sequential = await list(1);
    runs.push({ concurrent, sequential, ratio: sequential.seconds / concurrent.seconds });
  }
} finally {
  await emulator.close();
}
const conc = median(runs.map((r) => r.concurrent.seconds));
const seq = median(runs.map((r) => r.sequential.seconds));
const ratio = median(runs.map((r) => r.ratio));
printTable(
  `3. Listing ${MAPPINGS.toLocaleString("en")} mappings, ${LATENCY_MS} ms latency per request (median of ${RUNS})`,
  ["paging", "wall", "requests", "speed-up"],
  [
    [
      `concurrent (client concurrency ${CONCURRENCY})`,
      `${round(conc, 2)} s`,
      runs[0].concurrent.requests,
      `${round(ratio, 1)}x`,
    ],
    ["sequential (concurrency 1)", `${round(seq, 2)} s`, runs[0].sequential.requests, "1x"],
  ],
);
await writeResult("listing", {
  mappings: MAPPINGS,
  latencyMs: LATENCY_MS,
  concurrency: CONCURRENCY,
  runs,
  medianSeconds: { concurrent: conc, sequential: seq },
  speedUp: ratio,
});
