/**
 * A real OpenLDAP server for tests: `slapd` on 127.0.0.1 and a free port, started by
 * slapd-server.mjs (shared with the bench scripts): a temporary slapd.conf (mdb, `sizelimit 500` so
 * a read of more entries must page), the core, cosine, inetorgperson and nis schemas, and an LDIF
 * loaded with slapadd before the start. With `stats`, slapd logs every operation and
 * `operations()` lists the searches asked (base, filter, attributes); with `accessLog`,
 * slapo-accesslog logs the writes under LOG_BASE. `findSlapd()` is undefined where the Debian
 * packages `slapd` and `ldap-utils` are not installed; .ci/run installs them.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findSlapd, moduleDir, serveSlapd, slapdConf } from "./slapd-server.mjs";

export { findSlapd, moduleDir };

export const SUFFIX = "dc=example,dc=org";
export const ROOT_DN = `cn=admin,${SUFFIX}`;
export const ROOT_PASSWORD = "admin-secret-7e1";
/** A plain account: the size limit applies to it (it never applies to the rootdn). */
export const READER_DN = `cn=reader,${SUFFIX}`;
export const READER_PASSWORD = "reader-secret-3b9";

export const SKIP_MESSAGE =
  "slapd not found: install the Debian packages slapd and ldap-utils (.ci/run does) to run the LDAP tests";

/** Whether slapd is installed here; says once why the LDAP tests of a file are skipped when not. */
export function slapdAvailable(): boolean {
  const available = findSlapd() !== undefined;
  if (!available) console.warn(SKIP_MESSAGE);
  return available;
}

export interface Slapd {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Starts it again (same data, same port) after `stop()`. */
  start(): Promise<void>;
  remove(): Promise<void>;
  /** With `stats`: the searches asked so far, `base|filter|attributes` each (slapd's stats log). */
  operations(): string[];
}

/** With `accessLog`: the suffix of the access log database, and its own root (to purge by hand). */
export const LOG_BASE = "cn=accesslog";
export const LOG_ROOT_DN = `cn=admin,${LOG_BASE}`;

/** With `withLog`: slapo-accesslog, purged after a day (tests purge by hand as the log's root). */
function config(dir: string, strictSizeLimit: boolean, withLog = false): string {
  return slapdConf({
    dir,
    suffix: SUFFIX,
    rootDn: ROOT_DN,
    rootPassword: ROOT_PASSWORD,
    strictSizeLimit,
    ...(withLog
      ? {
          accessLog: {
            base: LOG_BASE,
            readerDn: READER_DN,
            rootDn: LOG_ROOT_DN,
            rootPassword: ROOT_PASSWORD,
          },
        }
      : {}),
  });
}

/** A person's DN under `ou` (default ou=people) and a group's under ou=groups. */
export const personDn = (uid: string, ou = "people"): string => `uid=${uid},ou=${ou},${SUFFIX}`;
export const groupDn = (cn: string): string => `cn=${cn},ou=groups,${SUFFIX}`;
/** An inetOrgPerson under ou=people (mail uid@example.org), and a groupOfNames under ou=groups. */
export const personLdif = (uid: string): string =>
  `dn: ${personDn(uid)}\nobjectClass: inetOrgPerson\nuid: ${uid}\ncn: ${uid}\nsn: Example\nmail: ${uid}@example.org\n`;
export const groupLdif = (cn: string, members: string[]): string =>
  `dn: ${groupDn(cn)}\nobjectClass: groupOfNames\ncn: ${cn}\n${members.map((m) => `member: ${m}\n`).join("")}`;

/**
 * `source.ldap` for a test directory at `url`, read as the reader (its password in
 * USERSYNC_LDAP_PASSWORD): people under ou=people who are not `employeeType: disabled`, groups
 * under ou=groups; `over` adds or replaces keys (groups, changesBy...).
 */
export function slapdLdapSource(url: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    url,
    bindDn: READER_DN,
    baseDn: `ou=people,${SUFFIX}`,
    groupBaseDn: `ou=groups,${SUFFIX}`,
    userFilter: "(&(objectClass=inetOrgPerson)(!(employeeType=disabled)))",
    ...over,
  };
}

/** The base entries every test directory has: the suffix, ou=people, ou=groups and the reader. */
export function baseLdif(): string {
  return [
    `dn: ${SUFFIX}\nobjectClass: dcObject\nobjectClass: organization\no: Example\ndc: example\n`,
    `dn: ou=people,${SUFFIX}\nobjectClass: organizationalUnit\nou: people\n`,
    `dn: ou=groups,${SUFFIX}\nobjectClass: organizationalUnit\nou: groups\n`,
    `dn: ${READER_DN}\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: reader\nuserPassword: ${READER_PASSWORD}\n`,
  ].join("\n");
}

export interface SlapdOptions {
  strictSizeLimit?: boolean;
  /** A whole slapd.conf instead of this helper's, given the server's folder (its db is `<dir>/db`). */
  conf?: (dir: string) => string;
  /** false: `ldif` is the whole directory, base entries included (a documented recipe's LDIF). */
  baseEntries?: boolean;
  /** Log every operation (`-d stats`), for `operations()`. */
  stats?: boolean;
  /** Add slapo-accesslog (LOG_BASE) to this helper's config: for `changesBy: accesslog`. */
  accessLog?: boolean;
}

/** The searches of a stats log: `SRCH base=… filter="…"`, then `SRCH attr=…` of the same op. */
function searches(log: string): string[] {
  const out: string[] = [];
  const open = new Map<string, number>();
  for (const line of log.split("\n")) {
    const m = /(conn=\d+ op=\d+) SRCH (.*)$/.exec(line);
    if (!m) continue;
    const base = /^base="([^"]*)" scope=\d+ deref=\d+ filter="(.*)"$/.exec(m[2]!);
    if (base) {
      open.set(m[1]!, out.length);
      out.push(`${base[1]}|${base[2]}|`);
    } else if (m[2]!.startsWith("attr=") && open.has(m[1]!)) out[open.get(m[1]!)!] += m[2]!.slice(5);
  }
  return out;
}

/** Loads `ldif` (after the base entries) and starts slapd. Always `remove()` at the end. */
export async function startSlapd(ldif: string, options: SlapdOptions = {}): Promise<Slapd> {
  if (!findSlapd()) throw new Error(SKIP_MESSAGE);
  const dir = await mkdtemp(join(tmpdir(), "usersync-slapd-"));
  await mkdir(join(dir, "db"));
  if (options.accessLog) await mkdir(join(dir, "log"));
  const conf = join(dir, "slapd.conf");
  await writeFile(
    conf,
    options.conf?.(dir) ?? config(dir, options.strictSizeLimit ?? false, options.accessLog),
  );
  await writeFile(join(dir, "data.ldif"), options.baseEntries === false ? ldif : `${baseLdif()}\n${ldif}`);
  const server = await serveSlapd({
    conf,
    ldifFile: join(dir, "data.ldif"),
    stats: options.stats ?? false,
    ...(options.accessLog ? { database: SUFFIX } : {}),
  });
  return {
    url: server.url,
    port: server.port,
    start: server.start,
    stop: server.stop,
    async remove() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
    operations: () => searches(server.log()),
  };
}
