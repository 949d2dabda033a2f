/**
 * A real OpenLDAP slapd on 127.0.0.1 and a free port, in plain JavaScript so that the tests
 * (test/helpers/slapd.ts) and the bench scripts (bench/read-ldap.mjs, bench/changes-directories.mjs,
 * run without a TS loader) start it the one way: its slapd.conf (mdb, `sizelimit 500` so a read of
 * more entries must page; the core, cosine, inetorgperson and nis schemas), the LDIF loaded with
 * slapadd before the start (much faster than ldapadd), then slapd in the foreground (`-d`, no
 * fork: the child is the server and stops with it), ready once its port answers.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { connect, createServer } from "node:net";
import { join } from "node:path";

const SEARCH_PATH = ["/usr/sbin", "/usr/local/sbin", "/usr/local/libexec", "/usr/libexec"];

/** slapd and slapadd, or undefined where the Debian packages slapd and ldap-utils are not installed. */
export function findSlapd() {
  for (const dir of SEARCH_PATH) {
    const slapd = join(dir, "slapd");
    const slapadd = join(dir, "slapadd");
    if (existsSync(slapd) && existsSync(slapadd)) return { slapd, slapadd };
  }
  return undefined;
}

/** Where this machine's slapd modules (back_mdb) are, if they are modules at all. */
export const moduleDir = () =>
  ["/usr/lib/ldap", "/usr/lib/x86_64-linux-gnu/ldap", "/usr/lib/aarch64-linux-gnu/ldap"].find((d) =>
    existsSync(join(d, "back_mdb.so")),
  );

/**
 * slapo-accesslog(5): a log database (mdb in `dir/log`, `index reqStart eq`) only `readerDn` may
 * read (and its own root, to purge by hand), before the main database; the overlay on the main
 * database, after it, logging successful writes, purged after `purge`.
 */
function accessLogLines(dir, modules, log) {
  if (!log) return { before: [], after: [] };
  return {
    before: [
      ...(modules ? ["moduleload accesslog"] : []),
      "database mdb",
      `maxsize ${log.maxSize ?? 104857600}`,
      `suffix "${log.base}"`,
      ...(log.rootDn ? [`rootdn "${log.rootDn}"`] : []),
      ...(log.rootPassword ? [`rootpw ${log.rootPassword}`] : []),
      `directory ${join(dir, "log")}`,
      "index reqStart eq",
      `access to * by dn.exact="${log.readerDn}" read by * none`,
    ],
    after: [
      "overlay accesslog",
      `logdb ${log.base}`,
      "logops writes",
      "logsuccess TRUE",
      `logpurge ${log.purge ?? "1+00:00 1+00:00"}`,
    ],
  };
}

/**
 * The slapd.conf of a server whose files are in `dir` (its db in `dir/db`; with `accessLog`, the
 * log in `dir/log`, which must exist too).
 */
export function slapdConf({
  dir,
  suffix,
  rootDn,
  rootPassword,
  strictSizeLimit = false,
  maxSize = 2147483648,
  accessLog,
}) {
  const modules = moduleDir();
  const log = accessLogLines(dir, modules, accessLog);
  return [
    ...["core", "cosine", "inetorgperson", "nis"].map((s) => `include /etc/ldap/schema/${s}.schema`),
    `pidfile ${join(dir, "slapd.pid")}`,
    ...(modules ? [`modulepath ${modules}`, "moduleload back_mdb"] : []),
    // Paged results may go past the limit (as most sites allow); a plain search may not.
    // Strict: a bare `sizelimit 500`, which caps paged searches at 500 too (slapd's default).
    strictSizeLimit ? "sizelimit 500" : "sizelimit size.soft=500 size.hard=500 size.prtotal=unlimited",
    ...log.before,
    "database mdb",
    `maxsize ${maxSize}`,
    `suffix "${suffix}"`,
    `rootdn "${rootDn}"`,
    ...(rootPassword === undefined ? [] : [`rootpw ${rootPassword}`]),
    `directory ${join(dir, "db")}`,
    "index objectClass eq",
    "access to attrs=userPassword by anonymous auth by * none",
    "access to * by * read",
    ...log.after,
    "",
  ].join("\n");
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port, child) {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`slapd exited with ${child.exitCode}`);
    const ok = await new Promise((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("slapd did not start listening");
}

/**
 * Loads `ldifFile` with slapadd (the db folder `conf` names must exist) and starts slapd with
 * `conf` on a free port. With `stats`, slapd logs every operation to what `log()` gives. With
 * `database` (a suffix), slapadd loads that database (needed where the conf has two: the log's).
 */
export async function serveSlapd({ conf, ldifFile, stats = false, database }) {
  const bins = findSlapd();
  if (!bins) throw new Error("slapd not found: install the Debian packages slapd and ldap-utils");
  const loadStart = performance.now();
  const load = spawnSync(
    bins.slapadd,
    ["-q", "-f", conf, ...(database ? ["-b", database] : []), "-l", ldifFile],
    { encoding: "utf8" },
  );
  if (load.status !== 0) throw new Error(`slapadd failed: ${load.stderr}`);
  const loadMs = performance.now() - loadStart;
  const port = await freePort();
  let child;
  let stderr = "";
  const start = async () => {
    const debug = stats ? "256" : "0"; // 256: stats, every operation
    child = spawn(bins.slapd, ["-d", debug, "-f", conf, "-h", `ldap://127.0.0.1:${port}/`], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    child.stderr.on("data", (d) => (stderr += d.toString()));
    try {
      await waitForPort(port, child);
    } catch (err) {
      throw new Error(`${err.message}: ${stderr}`, { cause: err });
    }
  };
  const stop = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null) return;
    await new Promise((resolve) => {
      c.once("exit", () => resolve());
      c.kill("SIGTERM");
    });
  };
  await start();
  return { port, url: `ldap://127.0.0.1:${port}`, loadMs, start, stop, log: () => stderr };
}
