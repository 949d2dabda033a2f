// The three directories of bench/changes.mjs (figure 20), each at BENCH_PEOPLE people in
// BENCH_GROUPS picked groups (`team-*`), adding LATENCY_MS to every request: the Okta stand-in
// (src/emulator/okta, System Log), the Google stand-in (src/emulator/google, HTTPS, the admin
// activity report) and a real OpenLDAP slapd behind a TCP proxy that holds every LDAP request
// 20 ms and counts the operations (slapd cannot add latency itself). Each gives the `source`
// block of the CLI's config, the same block for a second copy of the directory without latency
// (the bench reads it once, in-process, to seed the service emulator: see changes.mjs), counters,
// and the changes a directory admin makes: a leaver, a rename, a move between groups.
import { spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { join } from "node:path";
import { exportJWK, exportPKCS8, generateKeyPair } from "jose";
import { fromDist, here, writeStreamed } from "./lib.mjs";
import { serveSlapd, slapdConf } from "../test/helpers/slapd-server.mjs";

const TLS = join(here, "..", "fixtures", "tls");
const tls = () => ({
  key: readFileSync(join(TLS, "server-key.pem")),
  cert: readFileSync(join(TLS, "server.pem")),
});

/** Okta: makeDirectory's organization; a leaver deactivated, a rename a profile update. */
export async function okta({ people, groups, latencyMs, dir }) {
  const { makeDirectory } = await fromDist("emulator/okta/directory.js");
  const { startOktaStandIn } = await fromDist("emulator/okta/server.js");
  const keys = await generateKeyPair("RS256", { extractable: true });
  const publicJwk = { ...(await exportJWK(keys.publicKey)), alg: "RS256" };
  const privateKeyFile = join(dir, "okta-key.pem");
  await writeFile(privateKeyFile, await exportPKCS8(keys.privateKey), { mode: 0o600 });
  const app = {
    clientId: "0oa-bench",
    publicJwk,
    scopes: ["okta.users.read", "okta.groups.read", "okta.logs.read"],
  };
  const start = (latency) =>
    startOktaStandIn({ ...makeDirectory({ people, groups }), latencyMs: latency, serviceApps: [app] });
  const stand = await start(latencyMs);
  const source = (url) => ({
    type: "okta",
    okta: {
      orgUrl: url,
      credentials: { clientId: app.clientId, privateKeyFile },
      groups: [{ search: 'profile.name sw "team-"' }],
    },
  });
  const users = [...stand.store.users.values()].map((u) => u.id);
  const groupIds = [...stand.store.groups.keys()];
  const emailOf = (id) => stand.store.users.get(id).profile.email.toLowerCase();
  return {
    name: "Okta",
    source: source(stand.url),
    seedSource: async () => {
      const copy = await start(0);
      return { source: source(copy.url), close: () => copy.close() };
    },
    env: {},
    signIn: { oauthIssuerLocation: stand.url },
    people: users,
    emailOf,
    counts: () => {
      const api = stand.requests.filter((r) => r.url.startsWith("/api/v1/")).length;
      return { directory: api, tokens: stand.requests.length - api };
    },
    leave: async (ids) => ids.forEach((id) => stand.changes.deactivate(id)),
    rename: async (ids) =>
      ids.forEach((id) => stand.changes.updateProfile(id, { lastName: `${id} (renamed)` })),
    move: async (ids) =>
      ids.forEach((id) => {
        const from = groupIds.find((g) => stand.store.groups.get(g).members.includes(id));
        const to = groupIds[(groupIds.indexOf(from) + 1) % groupIds.length];
        stand.changes.member(from, id, false);
        stand.changes.member(to, id, true);
      }),
    close: () => stand.close(),
  };
}

/** Google: generateCustomer's customer; a leaver suspended, a rename CHANGE_LAST_NAME. */
export async function google({ people, groups, latencyMs, dir }) {
  const { startGoogleStandIn } = await fromDist("emulator/google/server.js");
  const { generateCustomer } = await fromDist("emulator/google/generate.js");
  const { GOOGLE_SCOPES, GOOGLE_REPORTS_SCOPE } = await fromDist("desired/sources/google/credentials.js");
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const SA = "usersync@bench.iam.gserviceaccount.com";
  const customer = generateCustomer({ people, groups });
  const start = (latency) =>
    startGoogleStandIn({
      ...generateCustomer({ people, groups }),
      latencyMs: latency,
      tls: tls(),
      serviceAccounts: [
        {
          clientEmail: SA,
          publicKeyPem: publicKey.export({ type: "spki", format: "pem" }),
          delegatedScopes: [...GOOGLE_SCOPES, GOOGLE_REPORTS_SCOPE],
        },
      ],
    });
  const stand = await start(latencyMs);
  const keyFile = async (url, name) => {
    const file = join(dir, name);
    await writeFile(
      file,
      JSON.stringify({
        type: "service_account",
        client_email: SA,
        private_key: privateKey.export({ type: "pkcs8", format: "pem" }),
        private_key_id: "bench",
        token_uri: `${url}/token`,
      }),
      { mode: 0o600 },
    );
    return file;
  };
  const source = async (url, name) => ({
    type: "google",
    google: {
      apiUrl: url,
      caFile: join(TLS, "ca.pem"),
      credentialsFile: await keyFile(url, name),
      subject: `admin@${customer.domain}`,
      groups: [{ query: "email:team-*" }],
    },
  });
  const d = stand.directory;
  const groupIds = customer.groups.map((g) => g.id);
  return {
    name: "Google",
    source: await source(stand.url, "google-key.json"),
    seedSource: async () => {
      const copy = await start(0);
      return { source: await source(copy.url, "google-seed-key.json"), close: () => copy.close() };
    },
    env: {},
    signIn: { oauthIssuerLocation: "https://accounts.google.com", oauthSubjectIdClaim: "sub" },
    people: customer.users.filter((u) => !u.isAdmin).map((u) => u.id),
    emailOf: (id) => d.users.get(id).primaryEmail.toLowerCase(),
    counts: () => ({ directory: stand.apiRequests, tokens: stand.tokens.grants.length }),
    leave: async (ids) => ids.forEach((id) => stand.changes.suspend(id)),
    rename: async (ids) =>
      ids.forEach((id) => {
        const u = d.users.get(id);
        u.name = { ...u.name, familyName: `${u.name.familyName} (renamed)`, fullName: undefined };
        d.usersChanged();
        stand.activity.record({
          type: "USER_SETTINGS",
          name: "CHANGE_LAST_NAME",
          parameters: { USER_EMAIL: u.primaryEmail },
        });
      }),
    move: async (ids) =>
      ids.forEach((id) => {
        const from = groupIds.find((g) => d.groups.get(g).members.some((m) => m.id === id));
        const to = groupIds[(groupIds.indexOf(from) + 1) % groupIds.length];
        stand.changes.member(from, id, false);
        stand.changes.member(to, id, true);
      }),
    close: () => stand.close(),
  };
}

const SUFFIX = "dc=bench,dc=example";
const ROOT = `cn=admin,${SUFFIX}`;
const ROOT_PW = "bench-root-pw";
const READER = `cn=reader,${SUFFIX}`;
const READER_PW = "bench-reader-pw";
/** Loaded long before the bench: a search by time since the first run finds none of them. */
const LOADED_AT = "20260101000000Z";
const uid = (i) => `person${String(i).padStart(6, "0")}`;
const personDn = (i) => `uid=${uid(i)},ou=people,${SUFFIX}`;
const team = (t) => `team-${String(t).padStart(2, "0")}`;

function* ldif(people, groups) {
  const stamp = `createTimestamp: ${LOADED_AT}\nmodifyTimestamp: ${LOADED_AT}\n`;
  yield `dn: ${SUFFIX}\nobjectClass: dcObject\nobjectClass: organization\no: Bench\ndc: bench\n${stamp}\n`;
  yield `dn: ou=people,${SUFFIX}\nobjectClass: organizationalUnit\nou: people\n${stamp}\n`;
  yield `dn: ou=groups,${SUFFIX}\nobjectClass: organizationalUnit\nou: groups\n${stamp}\n`;
  yield `dn: ${READER}\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: reader\nuserPassword: ${READER_PW}\n${stamp}\n`;
  for (let i = 0; i < people; i++)
    yield `dn: ${personDn(i)}\nobjectClass: inetOrgPerson\nuid: ${uid(i)}\ncn: Person ${i}\ngivenName: Person\nsn: No ${i}\nmail: ${uid(i)}@bench.example\n${stamp}\n`;
  for (let t = 0; t < groups; t++) {
    const members = [];
    for (let i = t; i < people; i += groups) members.push(`member: ${personDn(i)}\n`);
    yield `dn: cn=${team(t)},ou=groups,${SUFFIX}\nobjectClass: groupOfNames\ncn: ${team(t)}\n${members.join("")}${stamp}\n`;
  }
}

const OPS = { 0x60: "bind", 0x63: "search", 0x42: "unbind", 0x50: "abandon", 0x77: "extended" };

/** The length of the first whole BER LDAPMessage in `buf`, or undefined while it is incomplete. */
function messageLength(buf) {
  if (buf.length < 2) return undefined;
  const first = buf[1];
  if (first < 0x80) return 2 + first;
  const n = first & 0x7f;
  if (buf.length < 2 + n) return undefined;
  let len = 0;
  for (let i = 0; i < n; i++) len = len * 256 + buf[2 + i];
  return 2 + n + len;
}

/** The protocolOp's tag of a whole LDAPMessage (after its messageID). */
function opOf(msg) {
  const header = msg[1] < 0x80 ? 2 : 2 + (msg[1] & 0x7f);
  return msg[header + 2 + msg[header + 1]];
}

/** A TCP proxy in front of slapd: every LDAP request waits `latencyMs`, and is counted by operation. */
function ldapProxy(port, latencyMs) {
  const ops = {};
  const server = createServer((client) => {
    const upstream = connect(port, "127.0.0.1");
    let buf = Buffer.alloc(0);
    client.on("data", (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      for (let len = messageLength(buf); len !== undefined && buf.length >= len; len = messageLength(buf)) {
        const msg = buf.subarray(0, len);
        buf = buf.subarray(len);
        const op = OPS[opOf(msg)] ?? `op ${opOf(msg)}`;
        ops[op] = (ops[op] ?? 0) + 1;
        setTimeout(() => upstream.writable && upstream.write(msg), latencyMs);
      }
    });
    upstream.on("data", (d) => client.writable && client.write(d));
    client.on("end", () => setTimeout(() => upstream.end(), latencyMs + 1));
    upstream.on("end", () => client.end());
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ port: server.address().port, ops, close: () => new Promise((r) => server.close(r)) }),
    ),
  );
}

/** `source.ldap.changesBy`: BENCH_LDAP_CHANGES_BY=accesslog adds slapo-accesslog to the bench slapd. */
const CHANGES_BY = process.env.BENCH_LDAP_CHANGES_BY;
const LOG = "cn=accesslog";

/** LDAP: a real slapd (slapadd-loaded); a leaver's entry deleted, a rename a new cn, a move two group modifies. */
export async function ldap({ people, groups, latencyMs, dir }) {
  await mkdir(join(dir, "db"));
  await mkdir(join(dir, "log"));
  const conf = join(dir, "slapd.conf");
  await writeFile(
    conf,
    slapdConf({
      dir,
      suffix: SUFFIX,
      rootDn: ROOT,
      rootPassword: ROOT_PW,
      maxSize: 4294967296,
      // slapo-accesslog(5), with BENCH_LDAP_CHANGES_BY=accesslog: writes kept a week.
      ...(CHANGES_BY === "accesslog"
        ? { accessLog: { base: LOG, readerDn: READER, purge: "7+00:00 1+00:00", maxSize: 1073741824 } }
        : {}),
    }),
  );
  await writeStreamed(join(dir, "data.ldif"), ldif(people, groups));
  const slapd = await serveSlapd({ conf, ldifFile: join(dir, "data.ldif"), database: SUFFIX });
  const { port } = slapd;
  const proxy = await ldapProxy(port, latencyMs);
  const source = (p) => ({
    type: "ldap",
    ldap: {
      url: `ldap://127.0.0.1:${p}`,
      bindDn: READER,
      passwordEnv: "BENCH_LDAP_PW",
      baseDn: `ou=people,${SUFFIX}`,
      groupBaseDn: `ou=groups,${SUFFIX}`,
      ...(CHANGES_BY ? { changesBy: CHANGES_BY } : {}),
      // source.ldap.pageSize (default 500, the bench slapd's size limit); BENCH_LDAP_PAGE_SIZE tries others.
      ...(process.env.BENCH_LDAP_PAGE_SIZE ? { pageSize: Number(process.env.BENCH_LDAP_PAGE_SIZE) } : {}),
      attributes: {
        email: "{mail}",
        id: "{uid}",
        displayName: "{cn}",
        firstname: "{givenName}",
        lastname: "{sn}",
        identity: "external",
        authenticationId: "{uid}",
      },
      groups: [{ cn: "team-*" }],
    },
  });
  /** Runs ldapmodify as the rootdn straight against slapd (not through the proxy). */
  const modify = (text) =>
    new Promise((resolve, reject) => {
      const child = spawn(
        "/usr/bin/ldapmodify",
        ["-x", "-H", `ldap://127.0.0.1:${port}`, "-D", ROOT, "-w", ROOT_PW],
        { stdio: ["pipe", "ignore", "pipe"] },
      );
      let err = "";
      child.stderr.on("data", (d) => (err += d));
      child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`ldapmodify: ${err}`))));
      child.stdin.end(text);
    });
  // slapadd logs nothing: one write before the first run, for its read to anchor on (docs/ldap.md).
  if (CHANGES_BY === "accesslog")
    await modify(
      `dn: ou=groups,${SUFFIX}\nchangetype: modify\nreplace: description\ndescription: bench\n-\n`,
    );
  const index = (id) => Number(id.slice("person".length));
  const count = (...names) => names.reduce((n, k) => n + (proxy.ops[k] ?? 0), 0);
  return {
    name: "LDAP",
    source: source(proxy.port),
    seedSource: async () => ({ source: source(port), close: async () => {} }),
    env: { BENCH_LDAP_PW: READER_PW },
    signIn: { oauthIssuerLocation: "https://idp.bench.example", oauthSubjectIdClaim: "sub" },
    people: Array.from({ length: people }, (_, i) => uid(i)),
    emailOf: (id) => `${id}@bench.example`,
    counts: () => ({ directory: count("search", "extended", "abandon"), tokens: count("bind") }),
    leave: (ids) => modify(ids.map((id) => `dn: ${personDn(index(id))}\nchangetype: delete\n`).join("\n")),
    rename: (ids) =>
      modify(
        ids
          .map(
            (id) =>
              `dn: ${personDn(index(id))}\nchangetype: modify\nreplace: cn\ncn: Person ${index(id)} (renamed)\n-\n`,
          )
          .join("\n"),
      ),
    move: (ids) =>
      modify(
        ids
          .flatMap((id) => {
            const from = index(id) % groups;
            const to = (from + 1) % groups;
            const member = `member: ${personDn(index(id))}`;
            return [
              `dn: cn=${team(from)},ou=groups,${SUFFIX}\nchangetype: modify\ndelete: member\n${member}\n-\n`,
              `dn: cn=${team(to)},ou=groups,${SUFFIX}\nchangetype: modify\nadd: member\n${member}\n-\n`,
            ];
          })
          .join("\n"),
      ),
    close: async () => {
      await proxy.close();
      await slapd.stop();
    },
  };
}
