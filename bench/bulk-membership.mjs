// Figure 10, bulk membership (issue 24): a reorganisation of N people over G groups (everyone
// moves to the next group) under the emulator's fixed-window rate limit of R requests per second,
// applied twice side by side, each on a fresh emulator: one mapping PUT per person (the plan made
// as for a service without the bulk endpoints) and bulk (addMembers/removeMembers, 500 people a
// request). Figures: the apply's requests and wall time for each, and their ratios. Both runs end
// converged (a re-plan is empty). Target: at least 20x fewer requests and 20x less wall time.
//
//   node bench/bulk-membership.mjs [people=10000] [groups=50] [rate=10]
//
// At the full size the per-person side sends 10,000 requests: about 17 minutes at 10/s.
import { applyInProcess, dist, printTable, round, startEmulatorWorker, writeResult } from "./lib.mjs";

const [PEOPLE, GROUPS, RATE] = [10_000, 50, 10].map((fallback, i) => {
  const arg = process.argv[2 + i];
  const n = arg === undefined ? fallback : Number(arg);
  if (!Number.isInteger(n) || n < 1) {
    console.error(
      `usage: node bench/bulk-membership.mjs [people] [groups] [rate]; got ${process.argv.slice(2).join(" ")}`,
    );
    process.exit(2);
  }
  return n;
});
const TARGET = 20;
const CONCURRENCY = 8;

const id = (i) => `p${String(i).padStart(6, "0")}`;
const group = (i) => `g${String(i % GROUPS).padStart(3, "0")}`;

function seed() {
  const people = Array.from({ length: PEOPLE }, (_, i) => i);
  return {
    groups: Array.from({ length: GROUPS }, (_, g) => ({ id: group(g), name: `Group ${g}` })),
    idpUsers: people.map((i) => ({
      email: `${id(i)}@bench.example`,
      displayName: id(i),
      authenticationId: `a-${i}`,
    })),
    mappings: people.map((i) => ({
      id: id(i),
      authenticationId: `a-${i}`,
      email: `${id(i)}@bench.example`,
      groups: [group(i)],
    })),
  };
}

const users = Array.from({ length: PEOPLE }, (_, i) => ({
  email: `${id(i)}@bench.example`,
  id: id(i),
  idDerived: false,
  displayName: id(i),
  groups: [group(i + 1)],
  identity: "builtin",
  state: "present",
  source: { file: "users.csv", line: i + 2 },
}));

/** One apply on a fresh emulator; per person: planned as against a service without the bulk endpoints. */
async function once(side) {
  const emulator = await startEmulatorWorker({
    seed: seed(),
    faults: { rateLimit: { limit: RATE, windowSeconds: 1 } },
  });
  try {
    const res = await applyInProcess({
      url: emulator.url,
      users,
      concurrency: CONCURRENCY,
      // The client's own limit off: the emulator's X-RateLimit-* headers pace the run.
      requestsPerSecond: 0,
      planRate: RATE,
      actualFor: (listed) => (side === "per person" ? { ...listed, bulkMembership: false } : listed),
      verify: true,
    });
    return { side, ...res };
  } finally {
    await emulator.close();
  }
}

console.log(`bulk membership: ${PEOPLE} people, ${GROUPS} groups, ${RATE} requests/s (build ${dist})`);
const bulk = await once("bulk");
console.log(`  bulk: ${bulk.requests} requests, ${round(bulk.seconds, 1)} s`);
const perPerson = await once("per person");
console.log(`  per person: ${perPerson.requests} requests, ${round(perPerson.seconds, 1)} s`);
const requestRatio = perPerson.requests / bulk.requests;
const timeRatio = perPerson.seconds / bulk.seconds;
const met = requestRatio >= TARGET && timeRatio >= TARGET;
const row = (r) => [
  r.side,
  r.requests.toLocaleString("en"),
  `${round(r.seconds, 1)} s`,
  `${round(r.requests / RATE, 1)} s`,
  `${r.estimate.requests.toLocaleString("en")} / ${r.estimate.seconds} s`,
  r.throttled,
];
printTable(
  `10. Bulk membership: ${PEOPLE.toLocaleString("en")} people moved over ${GROUPS} groups at ${RATE} requests/s`,
  ["membership writes", "requests", "wall", "requests / R", "plan's estimate", "429s"],
  [row(perPerson), row(bulk)],
);
console.log(
  `ratio (per person / bulk): ${round(requestRatio, 1)}x requests, ${round(timeRatio, 1)}x wall time; target >= ${TARGET}x each: ${met ? "met" : "MISSED"}`,
);
await writeResult("bulk-membership", {
  people: PEOPLE,
  groups: GROUPS,
  rate: RATE,
  concurrency: CONCURRENCY,
  target: TARGET,
  met,
  requestRatio,
  timeRatio,
  results: [perPerson, bulk],
});
