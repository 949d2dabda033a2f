// Figure 9, reading the desired state from LDAP: `readLdapDesired` against a real OpenLDAP slapd
// (127.0.0.1, a free port, mdb, `sizelimit 500`, so every read pages) holding 100,000 people in
// 10 groups of 10,000 nested under one parent group, bound as a plain account (limits apply).
// Loaded with slapadd (minutes faster than ldapadd). Wall and CPU time and peak RSS of the
// reading process, median of 3 runs. Needs the Debian packages slapd and ldap-utils. slapd is
// started as the tests start it (test/helpers/slapd-server.mjs, plain JS for the bench scripts).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  childReport,
  fromDist,
  measureRuns,
  median,
  printTable,
  round,
  writeResult,
  writeStreamed,
} from "./lib.mjs";
import { findSlapd, serveSlapd, slapdConf } from "../test/helpers/slapd-server.mjs";

const COUNT = 100_000;
const TEAMS = 10;
const SUFFIX = "dc=bench,dc=example";
const READER = `cn=reader,${SUFFIX}`;
const READER_PW = "bench-reader-pw";

if (process.argv[2] === "--child") await child(process.argv[3]);
else await main();

async function child(url) {
  const { configSchema } = await fromDist("config/schema.js");
  const { readLdapDesired } = await fromDist("desired/sources/ldap/index.js");
  const config = configSchema.parse({
    source: {
      type: "ldap",
      ldap: {
        url,
        bindDn: READER,
        passwordEnv: "BENCH_LDAP_PW",
        baseDn: `ou=people,${SUFFIX}`,
        groupBaseDn: `ou=groups,${SUFFIX}`,
        attributes: {
          email: "{mail}",
          id: "{uid}",
          displayName: "{cn}",
          firstname: "{givenName}",
          lastname: "{sn}",
        },
        groups: [{ cn: "*" }],
      },
    },
  }).source.ldap;
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  const { state, problems } = await readLdapDesired({
    config,
    env: { BENCH_LDAP_PW: READER_PW },
    defaultIdentity: "builtin",
  });
  const wallMs = round(performance.now() - started, 1);
  const errors = problems.filter((p) => p.severity !== "warning").length;
  const inGroups = state.users.filter((u) => (u.groups ?? []).length === 2).length;
  childReport({ wallMs, users: state.users.length, groups: state.groups.length, inGroups, errors }, cpuStart);
}

function* ldif() {
  yield `dn: ${SUFFIX}\nobjectClass: dcObject\nobjectClass: organization\no: Bench\ndc: bench\n\n`;
  yield `dn: ou=people,${SUFFIX}\nobjectClass: organizationalUnit\nou: people\n\n`;
  yield `dn: ou=groups,${SUFFIX}\nobjectClass: organizationalUnit\nou: groups\n\n`;
  yield `dn: ${READER}\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: reader\nuserPassword: ${READER_PW}\n\n`;
  const dn = (i) => `uid=user${String(i).padStart(7, "0")},ou=people,${SUFFIX}`;
  for (let i = 1; i <= COUNT; i++) {
    const uid = `user${String(i).padStart(7, "0")}`;
    yield `dn: ${dn(i)}\nobjectClass: inetOrgPerson\nuid: ${uid}\ncn: User ${i}\ngivenName: First${i}\nsn: Last${i}\nmail: ${uid}@bench.example\n\n`;
  }
  for (let t = 0; t < TEAMS; t++) {
    let text = `dn: cn=team-${t},ou=groups,${SUFFIX}\nobjectClass: groupOfNames\ncn: team-${t}\n`;
    for (let i = 1; i <= COUNT; i++) if (i % TEAMS === t) text += `member: ${dn(i)}\n`;
    yield `${text}\n`;
  }
  let all = `dn: cn=all,ou=groups,${SUFFIX}\nobjectClass: groupOfNames\ncn: all\n`;
  for (let t = 0; t < TEAMS; t++) all += `member: cn=team-${t},ou=groups,${SUFFIX}\n`;
  yield `${all}\n`;
}

async function main() {
  if (!findSlapd()) {
    console.error("slapd not found: install the Debian packages slapd and ldap-utils");
    process.exit(1);
  }
  const dir = await mkdtemp(join(tmpdir(), "usersync-bench-ldap-"));
  let slapd;
  try {
    await mkdir(join(dir, "db"));
    const conf = join(dir, "slapd.conf");
    await writeFile(
      conf,
      slapdConf({ dir, suffix: SUFFIX, rootDn: `cn=admin,${SUFFIX}`, maxSize: 4294967296 }),
    );
    await writeStreamed(join(dir, "data.ldif"), ldif());
    slapd = await serveSlapd({ conf, ldifFile: join(dir, "data.ldif") });
    const { port, loadMs } = slapd;
    const measured = await measureRuns(
      fileURLToPath(import.meta.url),
      ["--child", `ldap://127.0.0.1:${port}`],
      {
        runs: 3,
      },
    );
    const wallMs = median(measured.map((m) => m.wallMs));
    const cpuMs = median(measured.map((m) => m.cpuMs));
    const rss = median(measured.map((m) => m.maxRssMiB));
    const m = measured[0];
    printTable(
      "9. Reading the desired state from LDAP (readLdapDesired against slapd, sizelimit 500; peak RSS of the reader)",
      [
        "entries",
        "groups",
        "runs",
        "wall (median)",
        "CPU (reader)",
        "peak RSS",
        "users read",
        "in 2 groups",
        "slapadd",
      ],
      [
        [
          COUNT.toLocaleString("en"),
          `${TEAMS} + 1 parent`,
          measured.length,
          `${round(wallMs / 1000, 2)} s`,
          `${round(cpuMs / 1000, 2)} s`,
          `${rss} MiB`,
          m.users.toLocaleString("en"),
          m.inGroups.toLocaleString("en"),
          `${round(loadMs / 1000, 1)} s`,
        ],
      ],
    );
    await writeResult("read-ldap", { entries: COUNT, wallMs, cpuMs, maxRssMiB: rss, loadMs, measured });
  } finally {
    await slapd?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
