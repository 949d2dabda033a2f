/**
 * Issue 48, "done when", for LDAP through the built CLI against a real slapd, on the frequent
 * schedule (`source.changes.mode: changes`, `fullEvery: 0`; the scenario is
 * test/helpers/changes-e2e.ts's): a leaver disabled in the directory (`employeeType: disabled`,
 * which `userFilter` excludes) loses every workspace and filter on a run that searches only by
 * `modifyTimestamp` and lists DNs (slapd's stats log shows those four searches and the rootDSE)
 * and lists only them on the service; a mapping made by hand is caught by the full reconcile
 * only; the directory gone during a changes-only run is exit 5 with nothing written; a position
 * that is not a time is a whole read. The same scenario with `changesBy: accesslog` (slapd with
 * slapo-accesslog): the leaver's run makes one search of the log and reads the leaver's DN again,
 * no listing; a purged position is a whole read.
 */
import { Attribute, Change, Client } from "ldapts";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import {
  LOG_BASE,
  READER_DN,
  READER_PASSWORD,
  ROOT_DN,
  ROOT_PASSWORD,
  SUFFIX,
  groupDn,
  groupLdif,
  personDn,
  personLdif,
  slapdAvailable,
  startSlapd,
  type Slapd,
} from "../helpers/slapd.js";
import {
  changesScenario,
  setPosition,
  startOrganization,
  writeChangesConfig,
} from "../helpers/changes-e2e.js";
import { runCli, withTempDir } from "./run-cli.js";

const TOKEN = "changes-ldap-e2e-token-48";
const USERS = "(&(objectClass=inetOrgPerson)(!(employeeType=disabled)))";
/** The default groupFilter as slapd logs it (`?`: an attribute type its schema lacks). */
const GROUPS = "(|(objectClass=groupOfNames)(?objectClass=group))";
const available = slapdAvailable();
const person = personDn;
const group = groupDn;
const LDIF = [
  ...["ada", "grace", "ken", "linus"].map(personLdif),
  // Linus stays in Platform: a picked group that reads empty is not believed (exit 5).
  groupLdif("Platform", [person("ken"), person("linus")]),
  groupLdif("Analytics Team", [person("ada"), person("grace"), group("Platform")]),
].join("\n");

let slapd: Slapd;
let emulator: EmulatorHandle;
beforeAll(async () => {
  if (!available) return;
  slapd = await startSlapd(LDIF, { stats: true });
  emulator = await startOrganization(TOKEN);
}, 60_000);
afterAll(async () => {
  await emulator?.close();
  await slapd?.remove();
});

async function disable(email: string, server = slapd): Promise<void> {
  const client = new Client({ url: server.url });
  await client.bind(ROOT_DN, ROOT_PASSWORD);
  try {
    const uid = email.split("@")[0]!;
    const disabled = new Attribute({ type: "employeeType", values: ["disabled"] });
    await client.modify(person(uid), new Change({ operation: "add", modification: disabled }));
  } finally {
    await client.unbind();
  }
}

/** The frequent run's source block against `url`, reading changes as `changesBy` says. */
const ldapSource = (url: string, changesBy?: string) => ({
  type: "ldap",
  ldap: {
    url,
    bindDn: READER_DN,
    baseDn: `ou=people,${SUFFIX}`,
    groupBaseDn: `ou=groups,${SUFFIX}`,
    userFilter: USERS,
    attributes: { email: "{mail}", id: "{uid}", authenticationId: "{uid}" },
    groups: [{ cn: "Platform" }, { cn: "Analytics Team" }],
    ...(changesBy ? { changesBy } : {}),
  },
});

describe.skipIf(!available)("LDAP changes only through the built CLI (slapd)", () => {
  it("a disabled leaver loses every workspace and filter; the full reconcile catches a hand-made mapping; the directory gone is exit 5, an unknown position a whole read", async () => {
    await withTempDir((dir) =>
      changesScenario(
        dir,
        emulator,
        {
          config: () =>
            writeChangesConfig(dir, {
              emulator,
              source: ldapSource(slapd.url),
              extra: { identity: { default: "external" } },
            }),
          env: { USERSYNC_TOKEN: TOKEN, USERSYNC_LDAP_PASSWORD: READER_PASSWORD },
          leaver: "ken@example.org",
          other: "ada@example.org",
          disable: (email) => disable(email),
          // Two searches by modifyTimestamp, two listings of DNs only (attribute 1.1), the rootDSE.
          feed: {
            mark: () => {
              const at = slapd.operations().length;
              return () =>
                slapd
                  .operations()
                  .slice(at)
                  .map((op) => op.replace(/modifyTimestamp>=\d{14}Z/, "modifyTimestamp>=T"))
                  .sort();
            },
            expected: [
              `ou=groups,${SUFFIX}|(&${GROUPS}(modifyTimestamp>=T))|cn member`,
              `ou=groups,${SUFFIX}|${GROUPS}|1.1`,
              `ou=people,${SUFFIX}|(&${USERS}(modifyTimestamp>=T))|mail uid`,
              `ou=people,${SUFFIX}|${USERS}|1.1`,
              // changesBy auto: the rootDSE says whether the server is Active Directory.
              "|(objectClass=*)|supportedCapabilities highestCommittedUSN dsServiceName",
            ],
          },
          breakFeed: () => slapd.stop(),
          mendFeed: () => slapd.start(),
          broken: /ldap:\/\/127\.0\.0\.1/,
          expire: {
            run: (dir) => setPosition(dir, { streams: { modifyTimestamp: "yesterday" } }),
            reason: "position-unknown",
          },
        },
        (args, env) => runCli(args, { env }),
      ),
    );
  }, 300_000);
});

describe.skipIf(!available)("LDAP changes only by the access log through the built CLI (slapd)", () => {
  let logged: Slapd;
  let organization: EmulatorHandle;
  beforeAll(async () => {
    logged = await startSlapd(LDIF, { stats: true, accessLog: true });
    organization = await startOrganization(TOKEN);
    // slapadd logs nothing: one write (outside both bases) for the first read to anchor on.
    const client = new Client({ url: logged.url });
    await client.bind(ROOT_DN, ROOT_PASSWORD);
    const description = new Attribute({ type: "description", values: ["anchor"] });
    await client.modify(SUFFIX, new Change({ operation: "add", modification: description }));
    await client.unbind();
  }, 60_000);
  afterAll(async () => {
    await organization?.close();
    await logged?.remove();
  });

  it("a disabled leaver is revoked at one search of the log and one read of their DN; a purged position is a whole read", async () => {
    await withTempDir((dir) =>
      changesScenario(
        dir,
        organization,
        {
          config: () =>
            writeChangesConfig(dir, {
              emulator: organization,
              source: ldapSource(logged.url, "accesslog"),
              extra: { identity: { default: "external" } },
            }),
          env: { USERSYNC_TOKEN: TOKEN, USERSYNC_LDAP_PASSWORD: READER_PASSWORD },
          leaver: "ken@example.org",
          other: "ada@example.org",
          disable: (email) => disable(email, logged),
          feed: {
            mark: () => {
              const at = logged.operations().length;
              return () =>
                logged
                  .operations()
                  .slice(at)
                  .map((op) => op.replace(/reqStart>=[\d.]+Z/, "reqStart>=P"))
                  .sort();
            },
            expected: [
              `${LOG_BASE}|(&(objectClass=auditWriteObject)(reqStart>=P))|reqStart reqType reqDN reqNewRDN reqNewSuperior reqResult`,
              `ou=people,${SUFFIX}|(&${USERS}(|(entryDN=${person("ken")})))|mail uid`,
            ],
          },
          breakFeed: () => logged.stop(),
          mendFeed: () => logged.start(),
          broken: /ldap:\/\/127\.0\.0\.1/,
          expire: {
            run: (dir) =>
              setPosition(dir, {
                streams: { reqStart: "20000101000000.000000Z", seen: "", accessLog: LOG_BASE },
              }),
            reason: "position-expired",
          },
        },
        (args, env) => runCli(args, { env }),
      ),
    );
  }, 300_000);
});
