/**
 * The entries an access log names (accesslog.ts), read again: every DN written since the position
 * under `baseDn` is searched with the user filter and every one under `groupBaseDn` with the
 * group filter, restricted to those DNs by `entryDN` (RFC 5020), DN_BATCH at a time. What the
 * search finds changed or is new; a kept person or group it does not find is gone (deleted,
 * renamed or moved away, or no longer matching the filter). A member of a group read again that
 * the picture does not know and that lies under `groupBaseDn` may be a group newly nested: it is
 * searched with the group filter too (rounds, as deep as the new nesting goes, up to
 * MAX_ROUNDS), so members split into people and groups as a whole read splits them.
 */
import {
  fallback,
  type DirectoryChange,
  type Fallback,
  type PicturedGroup,
  type PicturedPerson,
} from "../changes/feed.js";
import type { ReadTally } from "../../types.js";
import { groupBatch, type ChangesInput } from "./changes.js";
import type { LdapConfig, LdapConnection } from "./client.js";
import { escapeFilterValue, since } from "./groups.js";
import { readPictureGroups, readPicturePeople, USERS } from "./picture.js";
import { normaliseDn } from "./template.js";

/** DNs read again in one search (an OR of `entryDN` equalities). */
export const DN_BATCH = 100;
/** Rounds of members searched as groups before reading whole instead. */
const MAX_ROUNDS = 8;

/** One successful write of the log: its DN, and for a rename or move the DN it got. */
export interface LogWrite {
  start: string;
  type: string;
  dn: string;
  newDn?: string;
}

/** The DN above `dn` (after its first unescaped comma), "" for a DN of one RDN. */
export function parentDn(dn: string): string {
  const m = /^(?:[^,\\]|\\.)*,(.*)$/s.exec(dn);
  return m === null ? "" : m[1]!.trim();
}

/** Whether `dn` is `base` or below it (both normalised). */
export const under = (dn: string, base: string): boolean => dn === base || dn.endsWith(`,${base}`);

/**
 * `(|(entryDN=a)(entryDN=b)…)` for each batch of DNs; on Active Directory, which has no `entryDN`
 * (RFC 5020), `distinguishedName` (tombstones.ts).
 */
function batches(dns: readonly string[], attribute = "entryDN"): string[] {
  const out: string[] = [];
  for (let i = 0; i < dns.length; i += DN_BATCH)
    out.push(
      `(|${dns
        .slice(i, i + DN_BATCH)
        .map((dn) => `(${attribute}=${escapeFilterValue(dn)})`)
        .join("")})`,
    );
  return out;
}

/** The people of the user search among `dns`, searched DN_BATCH at a time. */
export async function peopleAt(
  o: { config: LdapConfig; connection: LdapConnection; reads: ReadTally[]; dnAttribute?: string },
  dns: string[],
): Promise<PicturedPerson[]> {
  const { config, connection } = o;
  const found: PicturedPerson[] = [];
  for (const clause of batches(dns, o.dnAttribute)) {
    const { people, read } = await readPicturePeople(config, connection, since(config.userFilter, clause));
    found.push(...people);
    o.reads.push({
      ...read,
      what: `users under ${config.baseDn} (${people.length} of ${dns.length} DNs changed)`,
    });
  }
  return found;
}

/** The people's changes: found -> upserted or new to USERS; a person of USERS named, not found -> gone. */
export function personChanges(
  people: readonly PicturedPerson[],
  users: ReadonlySet<string>,
  named: Iterable<string>,
): DirectoryChange[] {
  const found = new Set(people.map((p) => p.id));
  const out: DirectoryChange[] = [];
  for (const person of people)
    if (users.has(person.id)) out.push({ type: "person-upserted", person });
    else out.push({ type: "member-added", group: USERS, member: person.id, memberKind: "person", person });
  for (const dn of named)
    if (users.has(dn) && !found.has(dn))
      out.push({ type: "member-removed", group: USERS, member: dn, memberKind: "person" });
  return out;
}

async function groupsAt(config: LdapConfig, connection: LdapConnection, dns: string[], reads: ReadTally[]) {
  const found: PicturedGroup[] = [];
  for (const clause of batches(dns)) {
    const groups = await readPictureGroups(config, connection, since(config.groupFilter, clause), new Set());
    found.push(...groups);
    const base = config.groupBaseDn ?? config.baseDn;
    reads.push({
      what: `groups under ${base} (${groups.length} of ${dns.length} DNs)`,
      announced: "unknown",
      pages: 1,
      read: groups.length,
    });
  }
  return found;
}

/** The DNs the writes name, normalised, each as the log spells it; and the renames. */
function named(writes: readonly LogWrite[]) {
  const spelled = new Map<string, string>();
  for (const w of writes) {
    spelled.set(normaliseDn(w.dn), w.dn);
    if (w.newDn !== undefined) spelled.set(normaliseDn(w.newDn), w.newDn);
  }
  return { spelled, renames: writes.filter((w) => w.newDn !== undefined) };
}

/** The people's changes and the groups' (groupBatch), or why the run reads whole. */
export async function readTouched(
  o: ChangesInput & { writes: readonly LogWrite[]; reads: ReadTally[] },
): Promise<DirectoryChange[] | Fallback> {
  const { config, connection, picture, reads } = o;
  const userBase = normaliseDn(config.baseDn);
  const groupBase = normaliseDn(config.groupBaseDn ?? config.baseDn);
  const users = new Set(picture.groups.find((g) => g.id === USERS)?.people ?? []);
  const kept = new Set(picture.groups.filter((g) => g.id !== USERS).map((g) => g.id));
  const { spelled, renames } = named(o.writes);
  const at = (base: string) => [...spelled].filter(([dn]) => under(dn, base)).map(([, as]) => as);
  const people = await peopleAt(o, at(userBase));
  const groups = config.groups.length > 0 ? await groupsAt(config, connection, at(groupBase), reads) : [];
  const found = new Set([...people, ...groups].map((e) => e.id));
  const known = new Set([...users, ...kept, ...picture.groups.flatMap((g) => g.people), ...found]);
  const inScope = (dn: string) => [userBase, groupBase].some((b) => under(dn, b) || under(b, dn));
  for (const w of renames) {
    const [from, to] = [normaliseDn(w.dn), normaliseDn(w.newDn!)];
    if ((inScope(from) || inScope(to)) && !known.has(from) && !found.has(to))
      return fallback(
        "groups-changed",
        `the access log names ${w.dn} renamed or moved to ${w.newDn}, an entry that is not a person or group of the picture: entries below it may have moved with it, unnamed`,
      );
  }
  const out = personChanges(people, users, spelled.keys());
  if (config.groups.length === 0) return out;
  const nested = await newlyNested({ ...o, groups, known, groupBase });
  if (!Array.isArray(nested)) return nested;
  const removed = [...spelled.keys()].filter((dn) => kept.has(dn) && !found.has(dn));
  // inChain: the server expands nesting, so which picked groups a group change reaches is not in
  // the log; this reader reads them whole (the uSNChanged reader asks the server instead).
  if (config.nested === "inChain" && (nested.length > 0 || removed.length > 0))
    return fallback(
      "groups-changed",
      `${nested.length + removed.length} groups changed; with nested: inChain a group change is read whole`,
    );
  const batch = groupBatch({ picture, changed: nested, removed });
  return Array.isArray(batch) ? [...out, ...batch] : batch;
}

/**
 * The groups read again, and the groups newly nested into them read too, their members split
 * into people and groups by every group known (kept, or found now).
 */
async function newlyNested(
  o: ChangesInput & { groups: PicturedGroup[]; known: Set<string>; groupBase: string; reads: ReadTally[] },
): Promise<PicturedGroup[] | Fallback> {
  const { config, connection, known, groupBase } = o;
  const changed = [...o.groups];
  const isGroup = new Set([...o.picture.groups.map((g) => g.id), ...changed.map((g) => g.id)]);
  for (let round = 0; ; round++) {
    const unknown = new Set<string>();
    for (const g of changed)
      for (const m of [...g.people, ...g.groups])
        if (!isGroup.has(m) && !known.has(m) && under(m, groupBase)) unknown.add(m);
    if (unknown.size === 0) break;
    if (round === MAX_ROUNDS)
      return fallback(
        "groups-changed",
        `groups nested more than ${MAX_ROUNDS} deep were newly nested into a kept group`,
      );
    unknown.forEach((m) => known.add(m));
    for (const g of await groupsAt(config, connection, [...unknown], o.reads)) {
      changed.push(g);
      isGroup.add(g.id);
    }
  }
  return changed.map((g) => {
    const members = [...g.people, ...g.groups];
    return {
      ...g,
      people: members.filter((m) => !isGroup.has(m)).sort(),
      groups: members.filter((m) => isGroup.has(m)).sort(),
    };
  });
}
