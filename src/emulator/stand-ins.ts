/**
 * Directory stand-ins a person can rehearse with (`usersync emulator --directory KIND`,
 * docs/emulator.md): each kind starts its stand-in from a seed file (YAML, the directory's own
 * shapes, made-up people) or from generated people, writes what usersync needs to reach it (a key,
 * a secret, a CA) into a folder, and says which `source:` block reads it; the folder also gets a
 * rehearsal config (stand-in-seed.ts). A new directory registers one entry in STAND_INS; the
 * command and its help follow.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { generateTenant, STAND_IN_CLIENT, STAND_IN_TENANT } from "./graph/generate.js";
import { startGraphStandIn, type GraphTenant } from "./graph/server.js";
import { makeDirectory } from "./okta/directory.js";
import { startOktaStandIn } from "./okta/server.js";
import type { OktaGroup, OktaUser } from "./okta/types.js";
import { google } from "./google/stand-in.js";
import {
  listOf,
  readSeed,
  writeRehearsalConfig,
  type RunningStandIn,
  type StandInKind,
  type StandInStart,
} from "./stand-in-seed.js";

export type { RunningStandIn, StandInKind, StandInStart } from "./stand-in-seed.js";

const run = promisify(execFile);

/**
 * A CA and a certificate for 127.0.0.1 signed by it, made with openssl for this run (MSAL refuses
 * an authority that is not https). usersync trusts the CA through `caFile`; nothing else does.
 */
async function localTls(dir: string): Promise<{ key: Buffer; cert: Buffer; caFile: string }> {
  const f = (name: string) => join(dir, name);
  const ssl = (...args: string[]) => run("openssl", args);
  await ssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "30",
    "-subj",
    "/CN=usersync rehearsal CA",
    "-keyout",
    f("stand-in-ca-key.pem"),
    "-out",
    f("stand-in-ca.pem"),
  );
  await ssl(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-subj",
    "/CN=127.0.0.1",
    "-keyout",
    f("stand-in-key.pem"),
    "-out",
    f("stand-in.csr"),
  );
  await writeFile(f("stand-in.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  await ssl(
    "x509",
    "-req",
    "-in",
    f("stand-in.csr"),
    "-CA",
    f("stand-in-ca.pem"),
    "-CAkey",
    f("stand-in-ca-key.pem"),
    "-CAcreateserial",
    "-days",
    "30",
    "-extfile",
    f("stand-in.ext"),
    "-out",
    f("stand-in.pem"),
  );
  return {
    key: await readFile(f("stand-in-key.pem")),
    cert: await readFile(f("stand-in.pem")),
    caFile: f("stand-in-ca.pem"),
  };
}

/** A Microsoft Graph tenant (src/emulator/graph): seed `users:`, `groups:` (and `others:`) in Graph's shapes. */
const graph: StandInKind = async (o) => {
  const secret = randomBytes(24).toString("base64url");
  let tenant: GraphTenant = generateTenant({ people: 50, groups: 3, secret });
  if (o.seed !== undefined) {
    const seed = await readSeed(o.seed);
    tenant = {
      ...tenant,
      users: listOf(seed, "users", o.seed),
      groups: listOf(seed, "groups", o.seed),
      others: Array.isArray(seed["others"]) ? (seed["others"] as NonNullable<GraphTenant["others"]>) : [],
    };
  }
  const tls = await localTls(o.dir);
  const secretFile = join(o.dir, "entra-client-secret");
  await writeFile(secretFile, secret, { mode: 0o600 });
  const standIn = await startGraphStandIn({
    tenant,
    tls: { key: tls.key, cert: tls.cert },
    port: o.port,
    idleMs: 2_000_000_000,
  });
  const first = tenant.groups[0]?.displayName ?? "Team 000";
  return {
    url: standIn.url,
    source: [
      "source:",
      "  type: entra",
      "  entra:",
      `    tenant: ${STAND_IN_TENANT}`,
      `    clientId: ${STAND_IN_CLIENT}`,
      "    credential: secret",
      `    secretFile: ${secretFile}`,
      `    authorityHost: ${standIn.url}`,
      `    graphUrl: ${standIn.url}`,
      `    caFile: ${tls.caFile}`,
      "    attributes: { authenticationId: id }",
      "    groups:",
      `      - displayName: ${JSON.stringify(first)}`,
    ].join("\n"),
    notes: [
      `Graph stand-in (tenant ${STAND_IN_TENANT}, ${tenant.users.length} people in ${tenant.groups.length} groups) at ${standIn.url}`,
      `its CA: ${tls.caFile} (source.entra.caFile trusts it for usersync alone; curl --cacert ${tls.caFile}); the app's secret is in ${secretFile}`,
    ],
    close: () => standIn.close(),
  };
};

/** An Okta organization (src/emulator/okta): seed `users:`, `groups:` in Okta's management API shapes. */
const okta: StandInKind = async (o) => {
  let data: { users: OktaUser[]; groups: OktaGroup[] } = makeDirectory({ people: 50, groups: 3 });
  if (o.seed !== undefined) {
    const seed = await readSeed(o.seed);
    data = { users: listOf(seed, "users", o.seed), groups: listOf(seed, "groups", o.seed) };
  }
  const clientId = "0oa1rehearsal0stand1in";
  const { exportJWK, exportPKCS8, generateKeyPair } = await import("jose");
  const keys = await generateKeyPair("RS256", { extractable: true });
  const standIn = await startOktaStandIn(
    {
      ...data,
      serviceApps: [
        {
          clientId,
          publicJwk: { ...(await exportJWK(keys.publicKey)), alg: "RS256" },
          scopes: ["okta.users.read", "okta.groups.read", "okta.logs.read"],
        },
      ],
    },
    o.port,
  );
  const keyFile = join(o.dir, "okta-key.pem");
  await writeFile(keyFile, await exportPKCS8(keys.privateKey), { mode: 0o600 });
  const first = data.groups[0]?.profile.name ?? "team-00";
  return {
    url: standIn.url,
    source: [
      "source:",
      "  type: okta",
      "  okta:",
      `    orgUrl: ${standIn.url}`,
      `    credentials: { clientId: ${clientId}, privateKeyFile: ${keyFile} }`,
      "    groups:",
      `      - groupName: ${JSON.stringify(first)}`,
    ].join("\n"),
    notes: [
      `Okta stand-in (${data.users.length} people in ${data.groups.length} groups) at ${standIn.url} (plain http on 127.0.0.1)`,
      `the service app's private key: ${keyFile}`,
    ],
    close: () => standIn.close(),
  };
};

/** `--directory KIND`: the stand-ins the emulator command can serve beside the service. */
export const STAND_INS: Record<string, StandInKind> = { graph, okta, google };

/** A stand-in started, with the rehearsal config that reads it and targets the service at `serviceUrl`. */
export async function startStandIn(
  kind: string,
  o: StandInStart & { serviceUrl: string },
): Promise<RunningStandIn & { config: string }> {
  const start = STAND_INS[kind];
  if (start === undefined)
    throw new Error(`--directory ${kind} is not a stand-in: ${Object.keys(STAND_INS).join(", ")}`);
  const dir = resolve(o.dir);
  await mkdir(dir, { recursive: true });
  const running = await start({ seed: o.seed, port: o.port, dir });
  try {
    const config = await writeRehearsalConfig({
      dir,
      kind,
      serviceUrl: o.serviceUrl,
      source: running.source,
    });
    return { ...running, config };
  } catch (err) {
    await running.close();
    throw err;
  }
}
