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
import type { ChangeBatch, DirectoryChange, Picture, PicturedGroup, WholeReason } from "../changes/feed.js";
import type { ReadTally } from "../../types.js";
import type { LdapConfig, LdapConnection } from "./client.js";
import { IN_CHAIN_RULE, escapeFilterValue, searchGroups } from "./groups.js";
import { inChainPeople, inChainSkeleton, listDns, pictureGroupsOf, prunedGroups, USERS } from "./picture.js";
import { firstRange, remainingRange } from "./ranged.js";
import { normaliseDn, valuesOf } from "./template.js";

/** Where a picked group keeps the groups below it at any depth (normalised DNs, sorted). */
export const NESTED = "@nested";
const PER_FILTER = 100; // DNs per search filter of in-chain clauses

/** The domain's naming context: the `DC=` tail of `baseDn` (a domain's name), else its last RDN. */
export function namingContext(baseDn: string): string {
  const rdns = baseDn.split(/(?<!\\),/).map((r) => r.trim());
  let i = rdns.length;
  while (i > 0 && /^dc=/i.test(rdns[i - 1]!)) i -= 1;
  return rdns.slice(i === rdns.length ? rdns.length - 1 : i).join(",");
}

type Fallback = Extract<ChangeBatch, { kind: "fallback" }>;
const fallback = (reason: WholeReason, detail: string): Fallback => ({ kind: "fallback", reason, detail });

/** A filter written without its parentheses too, with them. */
const paren = (filter: string): string =>
  filter.trim().startsWith("(") ? filter.trim() : `(${filter.trim()})`;
/** The entries of `filter` that `clause` finds too. */
const since = (filter: string, clause: string): string => `(&${paren(filter)}${clause})`;

/** AD's group objects, and whatever `groupFilter` calls a group. */
const groupClass = (config: LdapConfig): string => `(|(objectClass=group)${paren(config.groupFilter)})`;

const chunks = <T>(list: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(list.length / PER_FILTER) }, (_, i) =>
    list.slice(i * PER_FILTER, (i + 1) * PER_FILTER),
  );

const inChainOf = (attribute: string, dns: readonly string[]): string =>
  `(|${dns.map((dn) => `(${attribute}:${IN_CHAIN_RULE}:=${escapeFilterValue(dn)})`).join("")})`;

/** Every group below any of the picked groups (DNs as spelled), with its direct parents. */
async function nestedGraph(
  config: LdapConfig,
  connection: LdapConnection,
  picked: readonly string[],
): Promise<{ parents: Map<string, string[]>; read: ReadTally }> {
  const parents = new Map<string, string[]>();
  const base = namingContext(config.baseDn);
  let pages = 0;
  for (const part of chunks(picked)) {
    const filter = `(&${groupClass(config)}${inChainOf("memberOf", part)})`;
    for await (const page of connection.pages({ base, filter, attributes: ["memberOf"] })) {
      pages += 1;
      for (const entry of page) {
        const { values, next } = firstRange(valuesOf(entry), "memberOf", entry.dn);
        const all = [...values];
        if (next !== undefined)
          all.push(...(await remainingRange(connection, { dn: entry.dn, name: "memberOf", next })));
        parents.set(
          normaliseDn(entry.dn),
          all.map((v) => normaliseDn(String(v))),
        );
      }
    }
  }
  const what = `groups below the ${picked.length} picked groups under ${base}, in chain`;
  return { parents, read: { what, announced: "unknown", pages, read: parents.size } };
}

/** Per picked group (normalised DN), the groups below it at any depth, sorted. */
function below(
  parents: ReadonlyMap<string, readonly string[]>,
  picked: readonly string[],
): Map<string, string[]> {
  const children = new Map<string, string[]>();
  for (const [child, list] of parents)
    for (const p of list) (children.get(p) ?? children.set(p, []).get(p)!).push(child);
  const out = new Map<string, string[]>();
  for (const top of picked) {
    const seen = new Set<string>();
    const todo = [...(children.get(top) ?? [])];
    while (todo.length > 0) {
      const id = todo.pop()!;
      if (seen.has(id)) continue;
      seen.add(id);
      todo.push(...(children.get(id) ?? []));
    }
    seen.delete(top);
    out.set(top, [...seen].sort());
  }
  return out;
}

/** A whole read's picked groups with `@nested`: one search of the groups below them. */
export async function withNested(
  config: LdapConfig,
  connection: LdapConnection,
  groups: readonly PicturedGroup[],
): Promise<{ groups: PicturedGroup[]; read: ReadTally }> {
  const picked = groups.filter((g) => g.rule !== undefined && g.rule >= 0);
  const { parents, read } = await nestedGraph(
    config,
    connection,
    picked.map((g) => g.name),
  );
  const nested = below(
    parents,
    picked.map((g) => g.id),
  );
  return {
    groups: groups.map((g) =>
      nested.has(g.id) ? { ...g, attributes: { ...g.attributes, [NESTED]: nested.get(g.id)! } } : g,
    ),
    read,
  };
}

/** The picked groups (normalised DNs) that hold any of `people` at any depth. */
async function holding(
  config: LdapConfig,
  connection: LdapConnection,
  people: readonly string[],
  reads: ReadTally[],
): Promise<Set<string>> {
  const base = config.groupBaseDn ?? config.baseDn;
  const found = new Set<string>();
  for (const part of chunks(people)) {
    const { dns, read } = await listDns(
      connection,
      base,
      since(config.groupFilter, inChainOf("member", part)),
    );
    reads.push({
      ...read,
      what: `groups under ${base} holding ${part.length} people new to the user search`,
    });
    dns.forEach((dn) => found.add(dn));
  }
  return found;
}

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

/** The people changes of one picked group read again: the server's answer against the picture's. */
function peopleChanges(group: string, before: readonly string[], now: readonly string[]): DirectoryChange[] {
  const [was, is] = [new Set(before), new Set(now)];
  return [
    ...now.filter((id) => !was.has(id)).map((member) => ({ type: "member-added" as const, group, member })),
    ...before
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

/** The group changes since the position with `nested: inChain`, or why they cannot be read. */
export async function inChainChanges(o: {
  config: LdapConfig;
  connection: LdapConnection;
  clause: string;
  picture: Picture;
  /** Normalised DNs of the people new to the user search in this read. */
  joined: readonly string[];
  reads: ReadTally[];
}): Promise<DirectoryChange[] | Fallback> {
  const { config, connection, reads } = o;
  const base = config.groupBaseDn ?? config.baseDn;
  const found = await searchGroups(config, connection);
  const what = `groups under ${base} (${config.groupFilter})`;
  reads.push({ what, announced: "unknown", pages: 1, read: found.byDn.size });
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
  const holds = o.joined.length > 0 ? await holding(config, connection, o.joined, reads) : new Set<string>();
  const reread = toReread({ picked, kept, nested, changed: changed.dns, holds });

  const out = structureChanges(fresh, kept);
  for (const g of reread) {
    const people = await inChainPeople({ config, connection, groupDn: g.name });
    reads.push({ what: `people of ${g.name} in chain`, announced: "unknown", pages: 1, read: people.length });
    out.push(...peopleChanges(g.id, kept.get(g.id)!.people, people));
  }
  return out;
}
