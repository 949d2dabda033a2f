// Figure 11, permissions: listing and planning the workspace permissions of 1,000 groups over
// 100 workspaces (a hierarchy of 10 parents with 9 children each; every group holds grants on 5
// workspaces; the desired state changes a tenth of the groups and, in full mode, takes one
// workspace away from a fiftieth), with 5 ms latency per request. The two ways of reading the
// grants side by side (one layout per workspace; the userManagement group listing), the way a
// run picks (`listActualState` with the run's listing: workspaces + grants, the users and groups
// listed as always), and `plan()` over it. Median of 3.
// Smaller: BENCH_PERM_GROUPS=100 BENCH_PERM_WORKSPACES=20 node bench/permissions.mjs
import { fromDist, median, printTable, round, startEmulatorWorker, TOKEN, writeResult } from "./lib.mjs";

const GROUPS = Number(process.env.BENCH_PERM_GROUPS ?? 1000);
const WORKSPACES = Number(process.env.BENCH_PERM_WORKSPACES ?? 100);
const PER_GROUP = 5;
const LATENCY_MS = 5;
const RUNS = 3;

const { createClient, listActualState } = await fromDist("service/index.js");
const { plan, defaultPolicy, permissionListing } = await fromDist("plan/index.js");
const { createLogger } = await fromDist("logging.js");

const ws = (i) => `w-${String(i).padStart(3, "0")}`;
const group = (i) => `g-${String(i).padStart(4, "0")}`;
/** The workspaces group i holds grants on: spread, no repeats. */
const workspacesOf = (i) => [
  ...new Set(Array.from({ length: PER_GROUP }, (_, k) => (i * 7 + k * 13) % WORKSPACES)),
];

function seed() {
  const workspaces = Array.from({ length: WORKSPACES }, (_, i) => ({
    id: ws(i),
    ...(i % 10 !== 0 ? { parent: ws(i - (i % 10)) } : {}),
    permissions: [],
  }));
  for (let g = 0; g < GROUPS; g++)
    for (const [k, w] of workspacesOf(g).entries())
      workspaces[w].permissions.push({
        userGroup: group(g),
        permissions: ["ANALYZE", "VIEW"],
        ...(k === 0 ? { hierarchy: ["VIEW"] } : {}),
      });
  return { groups: Array.from({ length: GROUPS }, (_, i) => ({ id: group(i) })), workspaces };
}

/** The desired state: the seed's grants, a tenth of the groups also EXPORT, a fiftieth without their last workspace. */
function desired() {
  const groups = Array.from({ length: GROUPS }, (_, g) => {
    const list = workspacesOf(g);
    const kept = g % 50 === 0 ? list.slice(0, -1) : list;
    return {
      id: group(g),
      source: { file: "groups.yaml", line: g + 1 },
      workspaces: kept
        .map((w, k) => ({
          workspace: ws(w),
          permissions: g % 10 === 0 ? ["ANALYZE", "EXPORT", "VIEW"] : ["ANALYZE", "VIEW"],
          hierarchy: list.indexOf(w) === 0 && k === 0 ? ["VIEW"] : [],
        }))
        .sort((a, b) => (a.workspace < b.workspace ? -1 : 1)),
    };
  });
  return { users: [], groups, files: ["groups.yaml"] };
}

const policy = {
  ...defaultPolicy,
  mode: "full",
  permissions: { workspaces: ["*"], maxRemovals: { percent: 100 }, allowOrganizationManage: false },
};

async function timed(client, fn) {
  const before = client.stats().requests;
  const started = performance.now();
  const value = await fn();
  return { value, seconds: (performance.now() - started) / 1000, requests: client.stats().requests - before };
}

const emulator = await startEmulatorWorker({ seed: seed(), faults: { latencyMs: LATENCY_MS } });
const want = desired();
const runs = [];
try {
  for (let r = 0; r < RUNS; r++) {
    const client = await createClient({
      baseUrl: emulator.url,
      token: TOKEN,
      profile: "v1",
      requestsPerSecond: 0,
      logger: createLogger({ level: "silent" }),
    });
    try {
      const api = client.permissions;
      const workspaces = await timed(client, () => api.listWorkspaces());
      const ids = workspaces.value.map((w) => w.id);
      const byWorkspace = await timed(client, () =>
        Promise.all(ids.map((id) => api.getWorkspacePermissions(id))),
      );
      const byAssignee = await timed(client, () => api.listAssigneePermissions("userGroup"));
      const listing = permissionListing(want, policy, 500);
      const run = await timed(client, () => listActualState(client, { permissions: listing }));
      const started = performance.now();
      const p = plan({ desired: want, actual: run.value, policy, profile: "v1" });
      const planSeconds = (performance.now() - started) / 1000;
      if (byWorkspace.value.flat().length !== byAssignee.value.length)
        throw new Error(
          `the two ways read ${byWorkspace.value.flat().length} and ${byAssignee.value.length} grants`,
        );
      runs.push({
        workspaces: { seconds: workspaces.seconds, requests: workspaces.requests },
        byWorkspace: { seconds: byWorkspace.seconds, requests: byWorkspace.requests },
        byAssignee: { seconds: byAssignee.seconds, requests: byAssignee.requests },
        run: { seconds: run.seconds, requests: run.requests, via: run.value.permissions.via },
        plan: {
          seconds: planSeconds,
          steps: p.steps.length,
          grants: run.value.permissions.assignments.length,
        },
      });
    } finally {
      await client.close();
    }
  }
} finally {
  await emulator.close();
}

const med = (pick) => round(median(runs.map(pick)), 3);
const first = runs[0];
printTable(
  `11. Permissions: ${GROUPS.toLocaleString("en")} groups over ${WORKSPACES} workspaces, ${LATENCY_MS} ms latency (median of ${RUNS})`,
  ["part", "wall", "requests"],
  [
    [
      "workspaces (entities listing, with parents)",
      `${med((r) => r.workspaces.seconds)} s`,
      first.workspaces.requests,
    ],
    [
      "grants by workspace (one layout each)",
      `${med((r) => r.byWorkspace.seconds)} s`,
      first.byWorkspace.requests,
    ],
    [
      "grants by assignee (userManagement group listing)",
      `${med((r) => r.byAssignee.seconds)} s`,
      first.byAssignee.requests,
    ],
    [
      `the run's listing (all of it; permissions ${first.run.via})`,
      `${med((r) => r.run.seconds)} s`,
      first.run.requests,
    ],
    [
      `plan() (${first.plan.grants.toLocaleString("en")} grants, ${first.plan.steps} steps)`,
      `${med((r) => r.plan.seconds)} s`,
      0,
    ],
  ],
);
await writeResult("permissions", {
  groups: GROUPS,
  workspaces: WORKSPACES,
  perGroup: PER_GROUP,
  latencyMs: LATENCY_MS,
  runs,
});
