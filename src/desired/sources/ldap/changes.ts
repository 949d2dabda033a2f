/**
 * LDAP's changes since a position (docs/ldap.md, "Changes-only runs"): the entries a reader's
 * filter clause finds changed since it. Two readers (ChangeReader): by `modifyTimestamp` (RFC
 * 4512's operational attribute, kept by every server: here) and by Active Directory's `uSNChanged`
 * (usn.ts); feed.ts picks one by `source.ldap.changesBy`. A third, OpenLDAP's access log
 * (accesslog.ts), proves removals itself and reads its own batch (`ChangeReader.read`): none of
 * what follows but the groups' rules (groupBatch) applies to it.
 *
 * A search by change sees entries added or changed, never entries deleted or moved out of the
 * search's filter. So every changes-only read also lists the DNs (no attributes) of the user
 * search and of the group search: a person or group of the picture that is not there any more
 * was deleted, renamed or filtered out. With both, the batch is whole:
 *
 * - users: `(&userFilter<changed>)` -> person-upserted (or member-added to USERS, for a person
 *   new to the search); a DN of USERS the DN listing lacks -> member-removed from USERS;
 * - groups: `(&groupFilter<changed>)` -> group-read (its members as they are now); a group newly
 *   picked or no longer picked by a rule, or a group newly nested whose members the picture does
 *   not know, is a fallback (groups-changed); a group gone -> group-removed (a picked one makes
 *   applyChanges fall back).
 *
 * With `nested: inChain` (AD) the server expands membership, so the groups a change reaches are
 * asked of it: in-chain.ts reads the group changes instead.
 *
 * The timestamp reader's position is the server-side time to search from: the client's clock
 * when the read began, less CLOCK_MARGIN_MS for clock skew between client and server and for the
 * timestamp's one-second grain. Changes in the overlap are read twice, which is harmless.
 */
import {
  fallback,
  type ChangeBatch,
  type DirectoryChange,
  type Fallback,
  type Picture,
  type PicturedGroup,
  type Position,
} from "../changes/feed.js";
import type { ReadTally } from "../../types.js";
import type { LdapConfig, LdapConnection } from "./client.js";
import { since } from "./groups.js";
import { inChainChanges } from "./in-chain.js";
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

/**
 * The changed entries' filter clause and the next position; `unchanged` when the directory says
 * nothing at all changed since (AD's counter did not move), so no search is needed.
 */
export interface Window {
  clause: string;
  position: Position;
  unchanged?: boolean;
}

/** What a reader that reads its own changes (`read`) is given. */
export interface ChangesInput {
  config: LdapConfig;
  connection: LdapConnection;
  since: Position;
  picture: Picture;
  now: number;
}

/** How a changes-only read finds the changed entries: a filter clause since a position. */
export interface ChangeReader {
  /** `source.ldap.changesBy` as resolved: the position's kind. */
  readonly by: "usn" | "timestamp" | "accesslog";
  /** A reader that proves removals itself (accesslog.ts): the whole batch, no DN listings. */
  read?(o: ChangesInput): Promise<ChangeBatch>;
  /** The people's changes its own way (tombstones.ts, `showDeleted`) instead of userChanges. */
  users?(o: UserChangesInput): Promise<DirectoryChange[]>;
  /** The position of a whole read that begins now (taken before it reads). */
  position(now: number): Promise<Position>;
  /** The clause finding the entries changed since `since`, and the next position; or why not. */
  window(since: Position, now: number): Promise<Window | Fallback>;
}

/** The position's kind, for a message: which reader wrote it. */
export function positionKind(p: Position): string {
  const names = Object.keys(p.streams);
  return names.length > 0 ? names.join(", ") : "empty";
}

/** The reader by `modifyTimestamp`: a time since the position, on any server. */
export const timestampReader: ChangeReader = {
  by: "timestamp",
  position: (now) => Promise.resolve(ldapPosition(now)),
  window(since, now) {
    const t = since.streams["modifyTimestamp"];
    const m = t === undefined ? null : GENERALIZED.exec(t);
    if (since.kind !== "ldap" || m === null)
      return Promise.resolve(
        fallback(
          "position-unknown",
          `the kept position is not an LDAP modifyTimestamp (it is ${positionKind(since)}): source.ldap.changesBy reads by modifyTimestamp now`,
        ),
      );
    const ms = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
    if (Number.isNaN(ms) || ms > now)
      return Promise.resolve(
        fallback(
          "position-unknown",
          `the kept position ${t} is later than this machine's clock: a clock set back?`,
        ),
      );
    return Promise.resolve({ clause: `(modifyTimestamp>=${t})`, position: ldapPosition(now) });
  },
};

/** What the people's changes are read from: the window's clause, the people of USERS. */
export interface UserChangesInput {
  config: LdapConfig;
  connection: LdapConnection;
  clause: string;
  users: ReadonlySet<string>;
  picture: Picture;
  reads: ReadTally[];
}

/** The changes of the user search: people changed, new to it, or gone from it. */
async function userChanges(o: UserChangesInput): Promise<DirectoryChange[]> {
  const { config, connection } = o;
  const changed = await readPicturePeople(config, connection, since(config.userFilter, o.clause));
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
  clause: string;
  picture: Picture;
  reads: ReadTally[];
}): Promise<DirectoryChange[] | Fallback> {
  const { config, connection } = o;
  const base = config.groupBaseDn ?? config.baseDn;
  const { dns, read } = await listDns(connection, base, config.groupFilter);
  const filter = since(config.groupFilter, o.clause);
  const changed = await readPictureGroups(config, connection, filter, dns);
  o.reads.push(read, {
    what: `groups under ${base} (${filter})`,
    announced: "unknown",
    pages: 1,
    read: changed.length,
  });
  const removed = o.picture.groups.filter((g) => g.id !== USERS && !dns.has(g.id)).map((g) => g.id);
  return groupBatch({ picture: o.picture, changed, removed });
}

/**
 * The changes of the groups from the groups read again (`changed`) and the kept groups gone
 * (`removed`), or why they cannot be applied to the picture: shared by the readers.
 */
export function groupBatch(o: {
  picture: Picture;
  changed: readonly PicturedGroup[];
  removed: readonly string[];
}): DirectoryChange[] | Fallback {
  const { changed, removed } = o;
  const kept = new Map(o.picture.groups.filter((g) => g.id !== USERS).map((g) => [g.id, g]));
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

/** ChangeFeed.readChanges for LDAP over an open connection, by a reader; `now` is epoch ms. */
export async function readLdapChanges(o: {
  config: LdapConfig;
  connection: LdapConnection;
  reader: ChangeReader;
  since: Position;
  picture: Picture;
  now: number;
}): Promise<ChangeBatch> {
  if (o.reader.read !== undefined) return o.reader.read(o);
  const window = await o.reader.window(o.since, o.now);
  if ("kind" in window) return window;
  const { clause, position } = window;
  if (window.unchanged === true) return { kind: "changes", changes: [], position, reads: [] };
  const reads: ReadTally[] = [];
  const users = new Set(o.picture.groups.find((g) => g.id === USERS)?.people ?? []);
  const people = await (o.reader.users ?? userChanges)({ ...o, clause, users, reads });
  const groups =
    o.config.groups.length === 0
      ? []
      : o.config.nested === "inChain"
        ? await inChainChanges({ ...o, clause, users: people, reads })
        : await groupChanges({ ...o, clause, reads });
  if (!Array.isArray(groups)) return groups;
  return { kind: "changes", changes: [...people, ...groups], position, reads };
}
