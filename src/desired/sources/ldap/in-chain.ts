/**
 * Group changes with `nested: inChain` (Active Directory; docs/ldap.md, "Changes-only runs"): the
 * server expands nesting with LDAP_MATCHING_RULE_IN_CHAIN, so a picked group's people change when
 * it, or any group below it anywhere in the domain, is written, or a group below it is deleted or
 * moved away. A changes-only read asks, with four searches besides the people read again:
 *
 * 1. the group search of a whole read (attributes and `memberOf`, no people): the picked groups,
 *    their rules and the nesting the picture keeps;
 * 2. the groups changed since the position anywhere in the domain's naming context (DNs only);
 * 3. the server's in-chain answer now for the groups below every picked group
 *    (`memberOf:1.2.840.113556.1.4.1941:=<picked group>`, with `memberOf`): per picked group, the
 *    groups below it at any depth, which the picture keeps on it as `@nested`;
 * 4. only for people new to the user search (an account re-enabled writes no group): the picked
 *    groups that hold them (`member:1.2.840.113556.1.4.1941:=<person>`).
 *
 * A picked group that changed, holds a changed group or a person new to the user search, or has
 * other groups below it than the picture kept (one deleted, moved or nested since), has its people
 * read again as a whole read reads them; the difference is member-added / member-removed. The
 * server's answer is the truth: a person who still reaches the group another way stays.
 */
import {
  fallback,
  type DirectoryChange,
  type Fallback,
  type Picture,
  type PicturedGroup,
} from "../changes/feed.js";
import type { ReadTally } from "../../types.js";
import type { LdapConfig, LdapConnection } from "./client.js";
import { searchGroups, since } from "./groups.js";
import { below, groupClass, holding, namingContext, NESTED, nestedGraph } from "./in-chain-search.js";
import { inChainPeople, inChainSkeleton, listDns, pictureGroupsOf, prunedGroups, USERS } from "./picture.js";

/** JSON with every object's keys sorted: groups compared whatever their attributes' order. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v,
  );

/** Why the picked groups cannot be kept as they are, if they cannot. */
function pickedChanged(
  fresh: ReadonlyMap<string, PicturedGroup>,
  kept: ReadonlyMap<string, PicturedGroup>,
): Fallback | undefined {
  for (const g of fresh.values()) {
    const before = kept.get(g.id);
    if (g.rule !== undefined && before?.rule !== g.rule)
      return fallback("groups-changed", `the group ${g.name} is now picked by source.ldap.groups[${g.rule}]`);
  }
  for (const g of kept.values()) {
    if (g.rule === undefined || g.rule < 0) continue;
    const now = fresh.get(g.id);
    if (now === undefined)
      return fallback(
        "groups-changed",
        `the picked group ${g.name} was deleted, moved or no longer matches source.ldap.groupFilter`,
      );
    if (now.rule === undefined)
      return fallback("groups-changed", `the group ${g.name} is no longer picked by a rule`);
    if (!Array.isArray(g.attributes[NESTED]))
      return fallback(
        "no-picture",
        `the kept picture has no nested groups of ${g.name} (kept by an older version): read whole once`,
      );
  }
  return undefined;
}

/**
 * The people changes of one picked group: its people read again (`now`, the server's answer)
 * against the picture's; a person the picture does not know and who is not new to the user search
 * was made after this read's window began and is read next time.
 */
function peopleChanges(o: {
  group: string;
  before: readonly string[];
  now: readonly string[];
  known: ReadonlySet<string>;
}): DirectoryChange[] {
  const [was, is] = [new Set(o.before), new Set(o.now)];
  const group = o.group;
  return [
    ...o.now
      .filter((id) => !was.has(id) && o.known.has(id))
      .map((member) => ({ type: "member-added" as const, group, member })),
    ...o.before
      .filter((id) => !is.has(id))
      .map((member) => ({ type: "member-removed" as const, group, member })),
  ].map((c) => ({ ...c, memberKind: "person" as const }));
}

/**
 * The picked groups to read again: changed, holding a changed group or a person new to the user
 * search, or with other groups below them than the picture kept. Each gets its `@nested` now.
 */
function toReread(o: {
  picked: readonly PicturedGroup[];
  kept: ReadonlyMap<string, PicturedGroup>;
  nested: ReadonlyMap<string, readonly string[]>;
  changed: ReadonlySet<string>;
  holds: ReadonlySet<string>;
}): PicturedGroup[] {
  const out: PicturedGroup[] = [];
  for (const g of o.picked) {
    const now = o.nested.get(g.id)!;
    const before = o.kept.get(g.id)!.attributes[NESTED] as readonly string[];
    if (
      o.changed.has(g.id) ||
      o.holds.has(g.id) ||
      now.some((id) => o.changed.has(id)) ||
      now.length !== before.length ||
      now.some((id, i) => id !== before[i])
    )
      out.push(g);
    g.attributes = { ...g.attributes, [NESTED]: now };
  }
  return out;
}

/** The groups as a whole read would keep them (nesting, attributes) against the picture's. */
function structureChanges(
  fresh: ReadonlyMap<string, PicturedGroup>,
  kept: ReadonlyMap<string, PicturedGroup>,
): DirectoryChange[] {
  const out: DirectoryChange[] = [];
  const wanted = prunedGroups([...fresh.values()]);
  for (const g of wanted) {
    const before = kept.get(g.id);
    const group = { ...g, people: before?.people ?? [] };
    if (before === undefined || canonical(group) !== canonical(before))
      out.push({ type: "group-read", group, people: [] });
  }
  const keep = new Set(wanted.map((g) => g.id));
  for (const id of kept.keys()) if (!keep.has(id)) out.push({ type: "group-removed", id });
  return out;
}

/** The people new to the user search in this read, and those gone from it (normalised DNs). */
function moved(users: readonly DirectoryChange[]): { joined: string[]; left: Set<string> } {
  const joined: string[] = [];
  const left = new Set<string>();
  for (const c of users)
    if (c.type === "member-added" && c.group === USERS) joined.push(c.member);
    else if (c.type === "member-removed" && c.group === USERS) left.add(c.member);
  return { joined, left };
}

/** The group changes since the position with `nested: inChain`, or why they cannot be read. */
export async function inChainChanges(o: {
  config: LdapConfig;
  connection: LdapConnection;
  clause: string;
  picture: Picture;
  /** This read's changes of the user search (changes.ts): people new to it, or gone from it. */
  users: readonly DirectoryChange[];
  reads: ReadTally[];
}): Promise<DirectoryChange[] | Fallback> {
  const { config, connection, reads } = o;
  const base = config.groupBaseDn ?? config.baseDn;
  const pages = (n: number) => Math.max(1, Math.ceil(n / config.pageSize));
  const found = await searchGroups(config, connection);
  const what = `groups under ${base} (${config.groupFilter})`;
  reads.push({ what, announced: "unknown", pages: pages(found.byDn.size), read: found.byDn.size });
  const fresh = new Map(inChainSkeleton(pictureGroupsOf(config, found), found.byDn).map((g) => [g.id, g]));
  const kept = new Map(o.picture.groups.filter((g) => g.id !== USERS).map((g) => [g.id, g]));
  const why = pickedChanged(fresh, kept);
  if (why !== undefined) return why;

  const nc = namingContext(config.baseDn);
  const changed = await listDns(connection, nc, since(groupClass(config), o.clause));
  reads.push({ ...changed.read, what: `groups changed under ${nc}` });
  const picked = [...fresh.values()].filter((g) => g.rule !== undefined);
  const graph = await nestedGraph(
    config,
    connection,
    picked.map((g) => g.name),
  );
  reads.push(graph.read);
  const nested = below(
    graph.parents,
    picked.map((g) => g.id),
  );
  const { joined, left } = moved(o.users);
  const holds = joined.length > 0 ? await holding(config, connection, joined, reads) : new Set<string>();
  const reread = toReread({ picked, kept, nested, changed: changed.dns, holds });

  const out = structureChanges(fresh, kept);
  const known = new Set([...(o.picture.groups.find((g) => g.id === USERS)?.people ?? []), ...joined]);
  for (const g of picked) {
    const before = kept.get(g.id)!.people;
    if (reread.includes(g)) {
      const now = await inChainPeople({ config, connection, groupDn: g.name });
      reads.push({
        what: `people of ${g.name} in chain`,
        announced: "unknown",
        pages: pages(now.length),
        read: now.length,
      });
      out.push(...peopleChanges({ group: g.id, before, now, known }));
    } else {
      // Gone from the user search: out of its in-chain people too, which that search filters.
      const now = before.filter((id) => !left.has(id));
      if (now.length < before.length) out.push(...peopleChanges({ group: g.id, before, now, known }));
    }
  }
  return out;
}
