// Figure 18, reading the desired state from Google Workspace: the Google source (dist) against
// the Google stand-in (dist/emulator/google: HTTPS, tokens from the real google-auth-library with
// a JWT-bearer grant and domain-wide delegation, 20 ms added to every answer) holding BENCH_PEOPLE
// people (default 100,000) in BENCH_GROUPS groups (default 50), picked by one group `query`.
// Counts the Directory API requests against the goal (ceil(members / 200) per group, plus the
// group search and ceil(users / 500) for names and state), the quota they spend, and puts the
// wall time beside the CSV reader's for the same people and groups. Stand-in and reader share
// this process. BENCH_RUNS runs each (default 3; the median is printed).
import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fromDist, median, printTable, round, writeResult } from "./lib.mjs";

const PEOPLE = Number(process.env.BENCH_PEOPLE ?? 100_000);
const GROUPS = Number(process.env.BENCH_GROUPS ?? 50);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const LATENCY_MS = 20;
/** A per-user query quota a minute to measure against (assumed; a project's quota page shows its own). */
const QUOTA_PER_MINUTE = 2400;
const TLS = fileURLToPath(new URL("../fixtures/tls/", import.meta.url));

const { startGoogleStandIn } = await fromDist("emulator/google/server.js");
const { generateCustomer } = await fromDist("emulator/google/generate.js");
const { GOOGLE_SCOPES } = await fromDist("desired/sources/google/credentials.js");
const { openGoogleSource } = await fromDist("desired/sources/google/source.js");
const { configSchema } = await fromDist("config/schema.js");
const { readDesiredState } = await fromDist("desired/index.js");
const { createLogger } = await fromDist("logging.js");

const customer = generateCustomer({ people: PEOPLE, groups: GROUPS });
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const SA = "usersync@bench.iam.gserviceaccount.com";
const google = await startGoogleStandIn({
  ...customer,
  latencyMs: LATENCY_MS,
  tls: { key: readFileSync(join(TLS, "server-key.pem")), cert: readFileSync(join(TLS, "server.pem")) },
  serviceAccounts: [
    {
      clientEmail: SA,
      publicKeyPem: publicKey.export({ type: "spki", format: "pem" }),
      delegatedScopes: GOOGLE_SCOPES,
    },
  ],
});
const dir = await mkdtemp(join(tmpdir(), "usersync-google-bench-"));
try {
  const keyFile = join(dir, "key.json");
  await writeFile(
    keyFile,
    JSON.stringify({
      type: "service_account",
      client_email: SA,
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }),
      private_key_id: "bench",
      token_uri: `${google.url}/token`,
    }),
  );
  const config = configSchema.parse({
    source: {
      type: "google",
      google: {
        apiUrl: google.url,
        caFile: join(TLS, "ca.pem"),
        credentialsFile: keyFile,
        subject: `admin@${customer.domain}`,
        groups: [{ query: "email:team-*" }],
      },
    },
  });
  // The same people as a CSV export would hold them.
  const groupOf = new Map();
  for (const g of customer.groups) for (const m of g.members) groupOf.set(m.id, g.email.split("@")[0]);
  const csv = ["email,firstname,lastname,groups"];
  for (const u of customer.users)
    if (groupOf.has(u.id))
      csv.push(`${u.primaryEmail},${u.name.givenName},${u.name.familyName},${groupOf.get(u.id)}`);
  const csvFile = join(dir, "people.csv");
  await writeFile(csvFile, `${csv.join("\n")}\n`);

  const logger = createLogger({ level: "silent", format: "json" });
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    const before = google.apiRequests;
    const grants = google.tokens.grants.length;
    const started = performance.now();
    const read = await openGoogleSource(config, { env: {}, logger, defaultIdentity: "builtin" }).read();
    const wallMs = performance.now() - started;
    const csvStarted = performance.now();
    const fromCsv = await readDesiredState({ file: csvFile });
    const csvMs = performance.now() - csvStarted;
    runs.push({
      wallMs,
      csvMs,
      people: read.state.users.length,
      csvPeople: fromCsv.state.users.length,
      requests: google.apiRequests - before,
      tokens: google.tokens.grants.length - grants,
      pages: read.evidence.reads.reduce((n, r) => n + r.pages, 0),
    });
  }
  const perGroup = Math.ceil(PEOPLE / GROUPS / 200);
  const goal = GROUPS * perGroup + 1 + Math.ceil((PEOPLE + 1) / 500);
  const r = runs.at(-1);
  const wall = median(runs.map((x) => x.wallMs));
  const csvWall = median(runs.map((x) => x.csvMs));
  const quotaShare = r.requests / QUOTA_PER_MINUTE;
  printTable(
    `18. Reading Google Workspace: ${PEOPLE.toLocaleString("en")} people in ${GROUPS} groups, ${LATENCY_MS} ms a request (median of ${RUNS})`,
    [
      "people",
      "Directory API requests",
      "goal",
      "token requests",
      "wall",
      "CSV reader, same people",
      "quota used",
    ],
    [
      [
        r.people.toLocaleString("en"),
        r.requests,
        `${goal} (${GROUPS} x ${perGroup} + 1 + ${Math.ceil((PEOPLE + 1) / 500)})`,
        r.tokens,
        `${round(wall / 1000, 2)} s`,
        `${round(csvWall / 1000, 2)} s`,
        `${r.requests} queries = ${Math.round(quotaShare * 100)}% of one minute's ${QUOTA_PER_MINUTE}`,
      ],
    ],
  );
  await writeResult("read-google", { people: PEOPLE, groups: GROUPS, latencyMs: LATENCY_MS, goal, runs });
} finally {
  await google.close();
  await rm(dir, { recursive: true, force: true });
}
