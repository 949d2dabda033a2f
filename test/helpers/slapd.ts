/**
 * A real OpenLDAP server for tests: `slapd` on 127.0.0.1 and a free port, with a temporary
 * slapd.conf (mdb, `sizelimit 500` so a read of more entries must page), the core, cosine,
 * inetorgperson and nis schemas, and an LDIF loaded with slapadd before the start (much faster
 * than ldapadd). With `stats`, slapd logs every operation and `operations()` lists the searches
 * asked (base, filter, attributes); with `accessLog`, slapo-accesslog logs the writes under
 * LOG_BASE. `findSlapd()` is undefined where the Debian packages `slapd` and `ldap-utils`
 * are not installed; .ci/run installs them.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const SUFFIX = "dc=example,dc=org";
export const ROOT_DN = `cn=admin,${SUFFIX}`;
export const ROOT_PASSWORD = "admin-secret-7e1";
/** A plain account: the size limit applies to it (it never applies to the rootdn). */
export const READER_DN = `cn=reader,${SUFFIX}`;
export const READER_PASSWORD = "reader-secret-3b9";

const SEARCH_PATH = ["/usr/sbin", "/usr/local/sbin", "/usr/local/libexec", "/usr/libexec"];

export function findSlapd(): { slapd: string; slapadd: string } | undefined {
  for (const dir of SEARCH_PATH) {
    const slapd = join(dir, "slapd");
    const slapadd = join(dir, "slapadd");
    if (existsSync(slapd) && existsSync(slapadd)) return { slapd, slapadd };
  }
  return undefined;
}

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

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Where this machine's slapd modules (back_mdb) are, if they are modules at all. */
export const moduleDir = (): string | undefined =>
  ["/usr/lib/ldap", "/usr/lib/x86_64-linux-gnu/ldap", "/usr/lib/aarch64-linux-gnu/ldap"].find((d) =>
    existsSync(join(d, "back_mdb.so")),
  );

/** With `accessLog`: the suffix of the access log database, and its own root (to purge by hand). */
export const LOG_BASE = "cn=accesslog";
export const LOG_ROOT_DN = `cn=admin,${LOG_BASE}`;

/**
 * slapo-accesslog(5): a log database (mdb, `index reqStart eq`) only the reader may read, and the
 * overlay on the main database logging successful writes; purged after a day (tests purge by
 * hand as the log's root).
 */
function accessLog(dir: string): { before: string[]; after: string[] } {
  return {
    before: [
      ...(moduleDir() ? ["moduleload accesslog"] : []),
      "database mdb",
      "maxsize 104857600",
      `suffix "${LOG_BASE}"`,
      `rootdn "${LOG_ROOT_DN}"`,
      `rootpw ${ROOT_PASSWORD}`,
      `directory ${join(dir, "log")}`,
      "index reqStart eq",
      `access to * by dn.exact="${READER_DN}" read by * none`,
    ],
    after: [
      "overlay accesslog",
      `logdb ${LOG_BASE}`,
      "logops writes",
      "logsuccess TRUE",
      "logpurge 1+00:00 1+00:00",
    ],
  };
}

function config(dir: string, strictSizeLimit: boolean, withLog = false): string {
  const modules = moduleDir();
  const log = withLog ? accessLog(dir) : { before: [], after: [] };
  return [
    ...["core", "cosine", "inetorgperson", "nis"].map((s) => `include /etc/ldap/schema/${s}.schema`),
    `pidfile ${join(dir, "slapd.pid")}`,
    ...(modules ? [`modulepath ${modules}`, "moduleload back_mdb"] : []),
    // Paged results may go past the limit (as most sites allow); a plain search may not.
    // Strict: a bare `sizelimit 500`, which caps paged searches at 500 too (slapd's default).
    strictSizeLimit ? "sizelimit 500" : "sizelimit size.soft=500 size.hard=500 size.prtotal=unlimited",
    ...log.before,
    "database mdb",
    "maxsize 2147483648",
    `suffix "${SUFFIX}"`,
    `rootdn "${ROOT_DN}"`,
    `rootpw ${ROOT_PASSWORD}`,
    `directory ${join(dir, "db")}`,
    "index objectClass eq",
    "access to attrs=userPassword by anonymous auth by * none",
    "access to * by * read",
    ...log.after,
    "",
  ].join("\n");
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

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`slapd exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("slapd did not start listening");
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
  const bins = findSlapd();
  if (!bins) throw new Error(SKIP_MESSAGE);
  const dir = await mkdtemp(join(tmpdir(), "usersync-slapd-"));
  await mkdir(join(dir, "db"));
  if (options.accessLog) await mkdir(join(dir, "log"));
  const conf = join(dir, "slapd.conf");
  await writeFile(
    conf,
    options.conf?.(dir) ?? config(dir, options.strictSizeLimit ?? false, options.accessLog),
  );
  await writeFile(join(dir, "data.ldif"), options.baseEntries === false ? ldif : `${baseLdif()}\n${ldif}`);
  const database = options.accessLog ? ["-b", SUFFIX] : [];
  const load = spawnSync(bins.slapadd, ["-q", "-f", conf, ...database, "-l", join(dir, "data.ldif")], {
    encoding: "utf8",
  });
  if (load.status !== 0) throw new Error(`slapadd failed: ${load.stderr}`);
  const port = await freePort();
  let child: ChildProcess | undefined;
  let stderr = "";
  const start = async (): Promise<void> => {
    // -d 0: stay in the foreground (no fork), so the child is the server and stops with it.
    const debug = options.stats ? "256" : "0"; // 256: stats, every operation
    child = spawn(bins.slapd, ["-d", debug, "-f", conf, "-h", `ldap://127.0.0.1:${port}/`], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    try {
      await waitForPort(port, child);
    } catch (err) {
      throw new Error(`${(err as Error).message}: ${stderr}`, { cause: err });
    }
  };
  const stop = async (): Promise<void> => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once("exit", () => resolve());
      c.kill("SIGTERM");
    });
  };
  await start();
  return {
    url: `ldap://127.0.0.1:${port}`,
    port,
    start,
    stop,
    async remove() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
    operations: () => searches(stderr),
  };
}
