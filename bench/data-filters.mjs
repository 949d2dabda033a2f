// Figure 15, data filters (issue 29): PEOPLE people (already mapped) with a filter each on each of
// WORKSPACES workspaces (`{label/region} = "r<k>"`), 5 ms latency per request, concurrency 32,
// page size 500. The first apply creates every filter; the re-plan with no change lists the
// service (each workspace's filters in its pages) and plans nothing. One run of each.
// Usage: node bench/data-filters.mjs [people] [workspaces]   (default 10,000 and 10)
import { fromDist, printTable, round, startEmulatorWorker, TOKEN, writeResult } from "./lib.mjs";

const PEOPLE = Number(process.argv[2] ?? 10_000);
const WORKSPACES = Number(process.argv[3] ?? 10);
const LATENCY_MS = 5;
const CONCURRENCY = 32;

const { createClient, listActualState } = await fromDist("service/index.js");
const { plan, defaultPolicy, dataFilterListing } = await fromDist("plan/index.js");
const { applyPlan } = await fromDist("apply/index.js");
const { renderMaql } = await fromDist("data-filters.js");
const { createLogger } = await fromDist("logging.js");

const id = (i) => `p${String(i).padStart(6, "0")}`;
const ws = (k) => `w-${String(k).padStart(2, "0")}`;

const seed = {
  idpUsers: Array.from({ length: PEOPLE }, (_, i) => ({
    email: `${id(i)}@bench.example`,
    displayName: id(i),
    authenticationId: `a-${i}`,
  })),
  mappings: [
    { id: "admin", groups: [] },
    ...Array.from({ length: PEOPLE }, (_, i) => ({
      id: id(i),
      authenticationId: `a-${i}`,
      email: `${id(i)}@bench.example`,
      groups: [],
    })),
  ],
  workspaces: Array.from({ length: WORKSPACES }, (_, k) => ({ id: ws(k) })),
};
const desired = {
  groups: [],
  files: ["users.yaml"],
  users: Array.from({ length: PEOPLE }, (_, i) => ({
    email: `${id(i)}@bench.example`,
    id: id(i),
    idDerived: false,
    displayName: id(i),
    groups: [],
    identity: "builtin",
    state: "present",
    source: { file: "users.yaml", line: i + 2 },
    dataFilters: Array.from({ length: WORKSPACES }, (_, k) => ({
      workspace: ws(k),
      maql: renderMaql("region", [`r${(i + k) % 7}`]),
      label: "region",
      values: [`r${(i + k) % 7}`],
    })),
  })),
};
const policy = { ...defaultPolicy, dataFilters: { workspaces: ["*"], maxWidenings: { count: 0 } } };
const passwords = { passwordFor: async () => undefined };

async function planned(client) {
  const before = client.stats().requests;
  const started = performance.now();
  const actual = await listActualState(client, { dataFilters: dataFilterListing({ desired, policy }) });
  const p = plan({ desired, actual, policy, profile: "v1" });
  return {
    plan: p,
    seconds: (performance.now() - started) / 1000,
    requests: client.stats().requests - before,
    filters: actual.dataFilters.filters.length,
  };
}

const emulator = await startEmulatorWorker({ seed, faults: { latencyMs: LATENCY_MS } });
try {
  const client = await createClient({
    baseUrl: emulator.url,
    token: TOKEN,
    profile: "v1",
    requestsPerSecond: 0,
    concurrency: CONCURRENCY,
    logger: createLogger({ level: "silent" }),
  });
  try {
    const first = await planned(client);
    const before = client.stats().requests;
    const started = performance.now();
    const result = await applyPlan({ plan: first.plan, client, concurrency: CONCURRENCY, passwords });
    const apply = {
      seconds: (performance.now() - started) / 1000,
      requests: client.stats().requests - before,
    };
    const failed = result.outcomes.filter((o) => o.outcome !== "succeeded").length;
    if (failed > 0) throw new Error(`${failed} steps did not succeed`);
    const again = await planned(client);
    const rows = [
      [
        "first plan (list + plan)",
        `${round(first.seconds)} s`,
        first.requests,
        `${first.plan.steps.length} steps`,
      ],
      [
        "first apply",
        `${round(apply.seconds)} s`,
        apply.requests,
        `${result.outcomes.length} filters created`,
      ],
      [
        "re-plan, no change (list + plan)",
        `${round(again.seconds)} s`,
        again.requests,
        `${again.plan.steps.length} steps, ${again.filters} filters listed`,
      ],
    ];
    printTable(
      `data filters: ${PEOPLE} people x ${WORKSPACES} workspaces, ${LATENCY_MS} ms latency`,
      ["part", "wall", "requests", "result"],
      rows,
    );
    await writeResult("data-filters", {
      people: PEOPLE,
      workspaces: WORKSPACES,
      first,
      apply,
      again: { seconds: again.seconds, requests: again.requests, steps: again.plan.steps.length },
    });
  } finally {
    await client.close();
  }
} finally {
  await emulator.close();
}
