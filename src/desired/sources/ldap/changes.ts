/**
 * LDAP's changes since a position (docs/ldap.md, "Changes-only runs"): the entries whose
 * `modifyTimestamp` (RFC 4512's operational attribute, kept by every server) is at or after it.
 *
 * A search by time sees entries added or changed, never entries deleted or moved out of the
 * search's filter. So every changes-only read also lists the DNs (no attributes) of the user
 * search and of the group search: a person or group of the picture that is not there any more
 * was deleted, renamed or filtered out. With both, the batch is whole:
 *
 * - users: `(&userFilter(modifyTimestamp>=T))` -> person-upserted (or member-added to USERS, for
 *   a person new to the search); a DN of USERS the DN listing lacks -> member-removed from USERS;
 * - groups: `(&groupFilter(modifyTimestamp>=T))` -> group-read (its members as they are now); a
 *   group newly picked or no longer picked by a rule, or a group newly nested whose members the
 *   picture does not know, is a fallback (groups-changed); a group gone -> group-removed (a picked
 *   one makes applyChanges fall back).
 *
 * The position is the server-side time to search from: the client's clock when the read began,
 * less CLOCK_MARGIN_MS for clock skew between client and server and for the timestamp's
 * one-second grain. Changes in the overlap are read twice, which is harmless. With
 * `nested: inChain` (AD) a group change is read whole: the server expands membership, and which
 * groups a change reaches cannot be told from the changed entries alone.
 */
import type { ChangeBatch, DirectoryChange, Picture, PicturedGroup, Position } from "../changes/feed.js";
import type { ReadTally } from "../../types.js";
import type { LdapConfig, LdapConnection } from "./client.js";
import { listDns, readPictureGroups, readPicturePeople, USERS } from "./picture.js";

/** How far before the read's start a position reaches back. */
export const CLOCK_MARGIN_MS = 5 * 60_000;

const GENERALIZED = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/;

/** `20261128221600Z`: RFC 4517's GeneralizedTime, in UTC, to the second. */
export function generalizedTime(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:T]/g, "")
    .replace(/\.\d+Z$/, "Z");
}

/** The position of a read that begins now. */
export function ldapPosition(now: number): Position {
  return {
    kind: "ldap",
    streams: { modifyTimestamp: generalizedTime(now - CLOCK_MARGIN_MS) },
    takenAt: new Date(now).toISOString(),
  };
}

/** The time to search from, or why the position is not one this reader can read. */
function searchFrom(since: Position, now: number): string | { detail: string } {
  const t = since.streams["modifyTimestamp"];
  const m = t === undefined ? null : GENERALIZED.exec(t);
  if (since.kind !== "ldap" || m === null)
    return { detail: `the kept position is not an LDAP modifyTimestamp (${JSON.stringify(since.streams)})` };
  const ms = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  if (Number.isNaN(ms) || ms > now)
    return { detail: `the kept position ${t} is later than this machine's clock: a clock set back?` };
  return t!;
}

/** The entries of `filter` changed at or after `from` (a filter written without its parentheses too). */
export function since(filter: string, from: string): string {
  const f = filter.trim().startsWith("(") ? filter.trim() : `(${filter.trim()})`;
  return `(&${f}(modifyTimestamp>=${from}))`;
}

function fallback(reason: "groups-changed" | "position-unknown", detail: string): ChangeBatch {
  return { kind: "fallback", reason, detail };
}

/** The changes of the user search: people changed, new to it, or gone from it. */
async function userChanges(o: {
  config: LdapConfig;
  connection: LdapConnection;
  from: string;
  users: ReadonlySet<string>;
  reads: ReadTally[];
}): Promise<DirectoryChange[]> {
  const { config, connection } = o;
  const changed = await readPicturePeople(config, connection, since(config.userFilter, o.from));
  const { dns: now, read } = await listDns(connection, config.baseDn, config.userFilter);
  o.reads.push(changed.read, read);
  const out: DirectoryChange[] = [];
  for (const person of changed.people) {
    if (!now.has(person.id)) continue;
    if (o.users.has(person.id)) out.push({ type: "person-upserted", person });
    else out.push({ type: "member-added", group: USERS, member: person.id, memberKind: "person", person });
  }
  for (const id of o.users)
    if (!now.has(id)) out.push({ type: "member-removed", group: USERS, member: id, memberKind: "person" });
  return out;
}

/** The changes of the groups, or why they cannot be applied to the picture. */
async function groupChanges(o: {
  config: LdapConfig;
  connection: LdapConnection;
  from: string;
  picture: Picture;
  reads: ReadTally[];
}): Promise<DirectoryChange[] | ChangeBatch> {
  const { config, connection } = o;
  const base = config.groupBaseDn ?? config.baseDn;
  const { dns, read } = await listDns(connection, base, config.groupFilter);
  const filter = since(config.groupFilter, o.from);
  const changed = await readPictureGroups(config, connection, filter, dns);
  o.reads.push(read, {
    what: `groups under ${base} (${filter})`,
    announced: "unknown",
    pages: 1,
    read: changed.length,
  });
  const kept = new Map(o.picture.groups.filter((g) => g.id !== USERS).map((g) => [g.id, g]));
  const removed = [...kept.keys()].filter((id) => !dns.has(id));
  if (config.nested === "inChain" && (changed.length > 0 || removed.length > 0))
    return fallback(
      "groups-changed",
      `${changed.length + removed.length} groups changed; with nested: inChain a group change is read whole`,
    );
  const byId = new Map(changed.map((g) => [g.id, g]));
  const out: DirectoryChange[] = removed.map((id) => ({ type: "group-removed", id }));
  const todo = changed.filter((g) => kept.has(g.id) || g.rule !== undefined);
  const done = new Set<string>();
  while (todo.length > 0) {
    const g = todo.pop()!;
    if (done.has(g.id)) continue;
    done.add(g.id);
    const before = kept.get(g.id);
    if (before?.rule !== g.rule)
      return fallback(
        "groups-changed",
        g.rule === undefined
          ? `the group ${g.name} is no longer picked by a rule`
          : `the group ${g.name} is now picked by source.ldap.groups[${g.rule}]`,
      );
    out.push({ type: "group-read", group: g as PicturedGroup, people: [] });
    for (const child of g.groups) {
      if (kept.has(child) || done.has(child)) continue;
      const fresh = byId.get(child);
      if (fresh === undefined)
        return fallback(
          "groups-changed",
          `the group ${child} was nested in ${g.name} and its members are not known`,
        );
      todo.push(fresh);
    }
  }
  return out;
}

/** ChangeFeed.readChanges for LDAP over an open connection; `now` is epoch ms. */
export async function readLdapChanges(o: {
  config: LdapConfig;
  connection: LdapConnection;
  since: Position;
  picture: Picture;
  now: number;
}): Promise<ChangeBatch> {
  const from = searchFrom(o.since, o.now);
  if (typeof from !== "string") return fallback("position-unknown", from.detail);
  const position = ldapPosition(o.now);
  const reads: ReadTally[] = [];
  const users = new Set(o.picture.groups.find((g) => g.id === USERS)?.people ?? []);
  const people = await userChanges({ ...o, from, users, reads });
  const groups = o.config.groups.length > 0 ? await groupChanges({ ...o, from, reads }) : [];
  if (!Array.isArray(groups)) return groups;
  return { kind: "changes", changes: [...people, ...groups], position, reads };
}
