/**
 * OpenLDAP's changes from its access log (`source.ldap.changesBy: accesslog`; docs/ldap.md, "By
 * the access log"), as slapo-accesslog(5) documents it: the overlay writes one entry per request
 * under its log database's suffix (`logdb`, here `source.ldap.accessLogBase`, default
 * `cn=accesslog`), DN `reqStart=<time>,<logdb>`, of objectClass auditWriteObject for a write
 * (`logops writes`), with `reqType` (add, delete, modify, modrdn), `reqDN`, `reqNewRDN`,
 * `reqNewSuperior` and `reqResult`; `logpurge` deletes the entries older than an age.
 *
 * - **The position** is the `reqStart` of a write the log holds when the whole read begins (the
 *   newest one found within ten minutes, a day, or at all): every write after it is in the log as
 *   long as that entry is (purging goes by age, oldest first). A log with no write yet keeps an
 *   empty position, which the next run reads whole (nothing in the log can prove it whole). The
 *   position also keeps the writes of the OVERLAP_MS before it (`seen`): a write is logged when
 *   it ends, stamped with when it began, so the next run searches from the oldest of them and
 *   reads the ones it has not seen.
 * - **A later run** makes one search of the log, the writes from the position on. The position's
 *   entry missing from the answer: purged, or another server answered, so a whole read
 *   (`position-expired`). Otherwise every DN written since (and each new DN of a rename or move)
 *   under `baseDn` or `groupBaseDn` is read again with the user filter (or the group filter),
 *   restricted to those DNs by `entryDN` (RFC 5020) in batches: found -> changed or new, not found
 *   -> gone (deleted, renamed or moved away, or no longer matching the filter). No DN listing.
 * - A rename or move of an entry that is not a person or group of the picture and not found as
 *   one after it (an `ou` holding people, or an ancestor of a base) moves entries the log does not
 *   name: a whole read (`groups-changed`).
 * - A log this account cannot read (or no log at that DN) is exit 4 with the fix; a server that
 *   is down is exit 5, as every read.
 */
import { DirectoryError, SourceUnavailableError } from "../../../errors.js";
import { fallback, type ChangeBatch, type Position } from "../changes/feed.js";
import type { ReadTally } from "../../types.js";
import { generalizedTime, positionKind, type ChangeReader, type ChangesInput } from "./changes.js";
import type { LdapConfig, LdapConnection } from "./client.js";
import { escapeFilterValue } from "./groups.js";
import { parentDn, readTouched, type LogWrite } from "./log-touched.js";
import { normaliseDn, valuesOf } from "./template.js";

export const DEFAULT_LOG_BASE = "cn=accesslog";
/** How far back the whole read looks for a write to anchor on, in turn; then the whole log. */
const ANCHOR_WINDOWS_MS = [10 * 60_000, 86_400_000];
/**
 * The overlap: a write is logged when it ends, stamped with when it began, so a long write may
 * show after a newer one. Each run searches again from the writes of the last OVERLAP_MS before
 * its position (at most MAX_SEEN of them), kept in the position as `seen`, and reads only the
 * entries it has not seen.
 */
const OVERLAP_MS = 5 * 60_000;
const MAX_SEEN = 1000;
const LOG_ATTRIBUTES = ["reqStart", "reqType", "reqDN", "reqNewRDN", "reqNewSuperior", "reqResult"];

export const logBase = (config: LdapConfig): string => config.accessLogBase ?? DEFAULT_LOG_BASE;

function fixed(config: LdapConfig, err: unknown): unknown {
  if (err instanceof SourceUnavailableError || !(err instanceof DirectoryError)) return err;
  return new DirectoryError({
    message: `${err.message.replace(/\. Nothing was sent to the service\.$/, "")}: source.ldap.changesBy is accesslog and the access log ${logBase(config)} cannot be read. Configure slapo-accesslog (logdb ${logBase(config)}, logops writes) on the database of source.ldap.baseDn, set source.ldap.accessLogBase to its logdb suffix, and give the bind account read access to it. Nothing was sent to the service.`,
  });
}

/** The successful writes of the log from `from` on (all without it), oldest first, less `skip`. */
export async function logWrites(
  config: LdapConfig,
  connection: LdapConnection,
  from?: string,
  skip: ReadonlySet<string> = new Set(),
): Promise<{ writes: LogWrite[]; starts: Set<string>; read: ReadTally }> {
  const base = logBase(config);
  const filter = `(&(objectClass=auditWriteObject)${from === undefined ? "" : `(reqStart>=${escapeFilterValue(from)})`})`;
  const writes: LogWrite[] = [];
  const starts = new Set<string>();
  let pages = 0;
  try {
    for await (const page of connection.pages({ base, filter, attributes: LOG_ATTRIBUTES })) {
      pages += 1;
      for (const entry of page) {
        const v = valuesOf(entry);
        const text = (name: string) => String(v.get(name.toLowerCase())?.[0] ?? "");
        const start = text("reqStart");
        starts.add(start);
        // A failed write changed nothing (`logsuccess FALSE` logs those too); no result: count it.
        const result = text("reqResult");
        if (skip.has(start) || (result !== "" && result !== "0")) continue;
        const write: LogWrite = { start, type: text("reqType"), dn: text("reqDN") };
        if (write.type === "modrdn") {
          const superior = text("reqNewSuperior") || parentDn(write.dn);
          write.newDn = superior === "" ? text("reqNewRDN") : `${text("reqNewRDN")},${superior}`;
        }
        writes.push(write);
      }
    }
  } catch (err) {
    throw fixed(config, err);
  }
  writes.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  return {
    writes,
    starts,
    read: { what: `access log ${base} (${filter})`, announced: "unknown", pages, read: starts.size },
  };
}

const STAMP = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})/;

/** The position after the log's writes `starts`: the newest, and those of the overlap before it. */
export function accessLogPosition(config: LdapConfig, starts: Iterable<string>, now: number): Position {
  const sorted = [...starts].sort();
  const reqStart = sorted.pop() ?? "";
  const m = STAMP.exec(reqStart);
  const floor =
    m === null
      ? ""
      : generalizedTime(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) - OVERLAP_MS);
  const seen = sorted.filter((s) => s >= floor).slice(-MAX_SEEN);
  return {
    kind: "ldap",
    streams: { reqStart, seen: seen.join(" "), accessLog: normaliseDn(logBase(config)) },
    takenAt: new Date(now).toISOString(),
  };
}

/** The writes of the log from its newest back, ten minutes, a day, then all; none when empty. */
async function anchor(config: LdapConfig, connection: LdapConnection, now: number): Promise<Set<string>> {
  try {
    if ((await connection.entry({ dn: logBase(config), attributes: ["1.1"] })) === undefined)
      throw new DirectoryError({
        message: `the directory ${config.url} returned no entry ${logBase(config)}`,
      });
  } catch (err) {
    throw fixed(config, err);
  }
  for (const back of [...ANCHOR_WINDOWS_MS, undefined]) {
    const from = back === undefined ? undefined : generalizedTime(now - back);
    const { starts } = await logWrites(config, connection, from);
    if (starts.size > 0) return starts;
  }
  return new Set();
}

/** The reader by OpenLDAP's access log. */
export function accessLogReader(config: LdapConfig, connection: LdapConnection): ChangeReader {
  return {
    by: "accesslog",
    position: async (now) => accessLogPosition(config, await anchor(config, connection, now), now),
    window: () =>
      Promise.resolve(fallback("position-unknown", "the access log reader reads its own changes")),
    read: readAccessLogChanges,
  };
}

/** Why the kept position cannot be read from this log, if it cannot. */
function refused(config: LdapConfig, p: Position): ChangeBatch | undefined {
  const { reqStart, accessLog } = p.streams;
  if (p.kind !== "ldap" || reqStart === undefined || accessLog !== normaliseDn(logBase(config)))
    return fallback(
      "position-unknown",
      `the kept position is not one of the access log ${logBase(config)} (it is ${positionKind(p)}): source.ldap.changesBy reads the access log now`,
    );
  if (reqStart === "")
    return fallback(
      "position-expired",
      `the access log ${logBase(config)} held no write when the last whole read began, so no entry of it proves it whole since: reading whole (the read anchors on the newest write logged)`,
    );
  return undefined;
}

/** ChangeReader.read: the log since the position, the DNs it names read again. */
async function readAccessLogChanges(o: ChangesInput): Promise<ChangeBatch> {
  const { config, connection } = o;
  const why = refused(config, o.since);
  if (why !== undefined) return why;
  const anchor = o.since.streams["reqStart"]!;
  const seen = (o.since.streams["seen"] ?? "").split(" ").filter((x) => x !== "");
  const log = await logWrites(config, connection, seen[0] ?? anchor, new Set([...seen, anchor]));
  if (!log.starts.has(anchor))
    return fallback(
      "position-expired",
      `the access log ${logBase(config)} no longer holds reqStart=${anchor} (purged by logpurge, or another server answered), so it cannot prove itself whole since the last read`,
    );
  const position = accessLogPosition(config, log.starts, o.now);
  const reads: ReadTally[] = [log.read];
  const touched = await readTouched({ ...o, writes: log.writes, reads });
  if (!Array.isArray(touched)) return touched;
  return { kind: "changes", changes: touched, position, reads };
}
