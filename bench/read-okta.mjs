// Figure 14: reading the desired state straight from Okta under the customer's shared rate limit.
// 100,000 people in 50 groups on the Okta stand-in (dist/emulator/okta), quota 600 requests a
// minute in each rate-limit family, headroom 50% (the default): requests used, wall time, 429s
// (goal: zero) and the share of each family's windows left to the organization's other
// integrations. A second row has the other integrations spend two thirds of every window of both
// families usersync reads as it opens (a 10 s window of 100, the same 600 a minute, so it ends in
// seconds). `--people N` scales it down on a loaded machine.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportJWK, exportPKCS8, generateKeyPair } from "jose";
import { fromDist, printTable, round, writeResult } from "./lib.mjs";

const at = process.argv.indexOf("--people");
const PEOPLE = at > 0 ? Number(process.argv[at + 1]) : 100_000;
const GROUPS = 50;

const { makeDirectory } = await fromDist("emulator/okta/directory.js");
const { startOktaStandIn } = await fromDist("emulator/okta/server.js");
const { readSource } = await fromDist("desired/sources/index.js");
const { loadConfig } = await fromDist("config/index.js");
const { createLogger } = await fromDist("logging.js");

async function scenario({ name, quota, othersShare }) {
  const keys = await generateKeyPair("RS256", { extractable: true });
  const publicJwk = { ...(await exportJWK(keys.publicKey)), alg: "RS256" };
  // The other integrations spend their share of every window of both families usersync reads, as it opens.
  const others = othersShare
    ? { "/api/v1/groups": othersShare, "/api/v1/groups/{id}/users": othersShare }
    : {};
  const okta = await startOktaStandIn({
    ...makeDirectory({ people: PEOPLE, groups: GROUPS }),
    quota: { ...quota, others },
    serviceApps: [{ clientId: "0oa-bench", publicJwk, scopes: ["okta.users.read", "okta.groups.read"] }],
  });
  const dir = await mkdtemp(join(tmpdir(), "usersync-okta-bench-"));
  try {
    await writeFile(join(dir, "key.pem"), await exportPKCS8(keys.privateKey));
    await writeFile(
      join(dir, "usersync.yaml"),
      JSON.stringify({
        source: {
          type: "okta",
          okta: {
            orgUrl: okta.url,
            credentials: { clientId: "0oa-bench", privateKeyFile: "key.pem" },
            groups: [{ search: 'profile.name sw "team-"' }],
          },
        },
      }),
    );
    const config = await loadConfig({ file: join(dir, "usersync.yaml"), env: {}, cwd: dir });
    const logger = createLogger({ level: "silent", format: "json", destination: process.stderr });
    const started = performance.now();
    const result = await readSource({ config, ctx: { env: {}, logger, defaultIdentity: "builtin" } });
    const wallMs = performance.now() - started;
    const api = okta.requests.filter((r) => r.url.startsWith("/api/v1/"));
    // Every window of every rate-limit family usersync spent in (groups, group members).
    const windows = okta.quota.windows.filter((w) => w.used > w.spentByOthers);
    const leftShare = Math.min(...windows.map((w) => (w.limit - (w.used - w.spentByOthers)) / w.limit));
    const ourShare = Math.max(
      ...windows.map((w) => (w.used - w.spentByOthers) / Math.max(1, w.limit - w.spentByOthers)),
    );
    return {
      name,
      quota: `${quota.limit} / ${quota.windowSeconds} s`,
      people: result.state.users.length,
      requests: api.length,
      tokens: okta.tokens.issued,
      windows: windows.length,
      wallMs: Math.round(wallMs),
      refused: okta.refused,
      leftShare,
      ourShare,
    };
  } finally {
    await okta.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const rows = [
  await scenario({ name: "alone", quota: { limit: 600, windowSeconds: 60 } }),
  await scenario({ name: "others spend 2/3", quota: { limit: 100, windowSeconds: 10 }, othersShare: 2 / 3 }),
];
printTable(
  `14. Reading Okta: ${PEOPLE.toLocaleString("en")} people in ${GROUPS} groups under the shared rate limit (headroom 50%)`,
  [
    "scenario",
    "quota",
    "people",
    "API requests",
    "windows (all families)",
    "wall",
    "429s",
    "usersync's share of a window's remaining (most)",
    "quota usersync left to others (least window)",
  ],
  rows.map((r) => [
    r.name,
    r.quota,
    r.people.toLocaleString("en"),
    `${r.requests} (+${r.tokens} token)`,
    r.windows,
    `${round(r.wallMs / 1000, 1)} s`,
    r.refused,
    `${Math.round(r.ourShare * 100)}%`,
    `${Math.round(r.leftShare * 100)}%`,
  ]),
);
await writeResult("read-okta", { people: PEOPLE, groups: GROUPS, rows });
