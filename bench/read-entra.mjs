// Figure 13, reading the desired state from Microsoft Entra ID: the Entra source (dist) against
// the Graph stand-in (src/emulator/graph: HTTPS, tokens from the real @azure/identity, 20 ms added
// to every answer) holding BENCH_PEOPLE people (default 100,000) in BENCH_GROUPS groups (default
// 50; every tenth person in a second group, a service principal and a device in each). Counts the
// Graph requests against the goal, ceil(members / 999) per group plus the lookups, and puts the
// wall time beside the CSV reader's for the same people and groups. The reader runs in its own
// process (the stand-in's CPU is not the reader's). BENCH_RUNS runs each (default 3).
import { writeFile } from "node:fs/promises";
import { mkdtemp, rm } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { childReport, fromDist, here, measureRuns, median, printTable, round, writeResult } from "./lib.mjs";

const PEOPLE = Number(process.env.BENCH_PEOPLE ?? 100_000);
const GROUPS = Number(process.env.BENCH_GROUPS ?? 50);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const LATENCY_MS = 20;
const SECRET = "bench-entra-secret";
const TLS = join(here, "..", "fixtures", "tls");

if (process.argv[2] === "--child") await child(process.argv[3], process.argv[4]);
else await main();

async function child(kind, where) {
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  let users;
  if (kind === "entra") {
    const { configSchema } = await fromDist("config/schema.js");
    const { openEntraSource } = await fromDist("desired/sources/entra/index.js");
    const { STAND_IN_CLIENT, STAND_IN_TENANT } = await fromDist("emulator/graph/generate.js");
    const { createLogger } = await fromDist("logging.js");
    const config = configSchema.parse({
      source: {
        type: "entra",
        entra: {
          tenant: STAND_IN_TENANT,
          clientId: STAND_IN_CLIENT,
          credential: "secret",
          authorityHost: where,
          graphUrl: where,
          caFile: join(TLS, "ca.pem"),
          groups: [{ filter: "startswith(displayName,'Team')" }],
        },
      },
    });
    const logger = createLogger({ level: "silent", format: "json" });
    const read = await openEntraSource(config, {
      env: { USERSYNC_ENTRA_CLIENT_SECRET: SECRET },
      logger,
      defaultIdentity: "builtin",
    }).read();
    users = read.state.users.length;
  } else {
    const { readDesiredState } = await fromDist("desired/index.js");
    const read = await readDesiredState({ file: where });
    users = read.state.users.length;
  }
  childReport({ wallMs: round(performance.now() - started, 1), users }, cpuStart);
}

/** The same people as a CSV export would hold them: one row each, their groups `;`-separated. */
function csvOf(tenant) {
  const groupsOf = new Map();
  for (const g of tenant.groups)
    for (const m of g.members) (groupsOf.get(m) ?? groupsOf.set(m, []).get(m)).push(g.mailNickname);
  const rows = ["email,displayName,firstname,lastname,groups,state"];
  for (const u of tenant.users) {
    if (u.userType === "Guest") continue;
    const state = u.accountEnabled ? "present" : "absent";
    rows.push(
      [u.mail, u.displayName, u.givenName, u.surname, (groupsOf.get(u.id) ?? []).join(";"), state].join(","),
    );
  }
  return `${rows.join("\n")}\n`;
}

async function main() {
  const { startGraphStandIn } = await fromDist("emulator/graph/server.js");
  const { generateTenant } = await fromDist("emulator/graph/generate.js");
  const tenant = generateTenant({ people: PEOPLE, groups: GROUPS, secret: SECRET });
  const graph = await startGraphStandIn({
    tenant,
    latencyMs: LATENCY_MS,
    tls: { key: readFileSync(join(TLS, "server-key.pem")), cert: readFileSync(join(TLS, "server.pem")) },
  });
  const dir = await mkdtemp(join(tmpdir(), "usersync-bench-entra-"));
  try {
    const script = fileURLToPath(import.meta.url);
    const entra = await measureRuns(script, ["--child", "entra", graph.url], { runs: RUNS });
    const graphRequests = graph.requests.filter((r) => r.path.startsWith("/v1.0/")).length / RUNS;
    const tokenRequests = graph.requests.filter((r) => !r.path.startsWith("/v1.0/")).length / RUNS;
    const people = new Set(tenant.users.map((u) => u.id));
    const members = tenant.groups.map((g) => g.members.filter((m) => people.has(m)).length);
    const goal = members.reduce((n, m) => n + Math.ceil(m / 999), 0);
    const csv = join(dir, "users.csv");
    await writeFile(csv, csvOf(tenant));
    const fromCsv = await measureRuns(script, ["--child", "csv", csv], { runs: RUNS });
    const entraMs = median(entra.map((m) => m.wallMs));
    const csvMs = median(fromCsv.map((m) => m.wallMs));
    printTable(
      `13. Reading the desired state from Entra ID (Graph stand-in, ${LATENCY_MS} ms a request) beside the CSV reader, same people`,
      [
        "people",
        "groups",
        "Graph requests",
        "goal: sum ceil(members/999)",
        "+ lookups",
        "token requests",
        "Entra wall (median)",
        "CSV wall (median)",
        "users",
      ],
      [
        [
          PEOPLE.toLocaleString("en"),
          GROUPS,
          graphRequests,
          goal,
          graphRequests - goal,
          tokenRequests,
          `${round(entraMs / 1000, 2)} s`,
          `${round(csvMs / 1000, 2)} s`,
          `${entra[0].users.toLocaleString("en")} / ${fromCsv[0].users.toLocaleString("en")}`,
        ],
      ],
    );
    await writeResult("read-entra", {
      people: PEOPLE,
      groups: GROUPS,
      latencyMs: LATENCY_MS,
      graphRequests,
      goal,
      tokenRequests,
      entraMs,
      csvMs,
      entra,
      csv: fromCsv,
    });
  } finally {
    await graph.close();
    await rm(dir, { recursive: true, force: true });
  }
}
