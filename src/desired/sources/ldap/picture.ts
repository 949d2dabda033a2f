/**
 * An LDAP directory as a changes-only picture (../changes/feed.ts): every group under the group
 * base that a picked group reaches (its direct members split into people and nested groups), and
 * every user entry of the user search with the attributes the templates read.
 *
 * LDAP's desired people are the user search, not the members of the picked groups (a person in
 * no picked group is still a user): the picture keeps them as the members of one extra group,
 * USERS, that no directory has (its id is not a DN) and that a rule index of -1 keeps in the
 * picture. Its members are every entry the user search finds; build.ts reads people from it only.
 * Ids are normalised DNs; a person's DN as the directory spells it is kept as `@dn` (no template
 * can name it), a group's as its name.
 */
import type { Entry } from "ldapts";
import { reachable } from "../changes/apply.js";
import type { Attributes, PicturedGroup, PicturedPerson } from "../changes/feed.js";
import type { ReadTally } from "../../types.js";
import type { LdapConfig, LdapConnection } from "./client.js";
import {
  IN_CHAIN_RULE,
  escapeFilterValue,
  searchGroups,
  type DirectoryGroup,
  type Picked,
} from "./groups.js";
import { userAttributes } from "./index.js";
import { binaryText, normaliseDn, valuesOf, type Values } from "./template.js";

/** The one group of the picture that holds the user search's people. */
export const USERS = "(users)";
/** The rule index that keeps USERS in the picture (a picked group's is 0 or more). */
export const USERS_RULE = -1;
/** Where a person's DN as the directory spells it is kept. */
export const DN = "@dn";

/** An entry's values as picture attributes: text lists (binary values as their text form). */
export function attributesOfValues(values: Values): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, list] of values)
    out[name] = list.map((v) => (typeof v === "string" ? v : binaryText(name, v)));
  return out;
}

/** Picture attributes back as template values (`@dn`, `@nested`: usersync's own, left out). */
export function valuesOfAttributes(attributes: Attributes): Values {
  const values = new Map<string, string[]>();
  for (const [name, v] of Object.entries(attributes))
    if (!name.startsWith("@") && v !== null)
      values.set(name, Array.isArray(v) ? [...(v as string[])] : [String(v)]);
  return values;
}

export function personOf(entry: Entry): PicturedPerson {
  return {
    id: normaliseDn(entry.dn),
    status: "enabled",
    attributes: { ...attributesOfValues(valuesOf(entry)), [DN]: entry.dn },
  };
}

/** A group as the picture keeps it: members that are groups (of `groupDns`) apart from the rest. */
export function groupOf(o: {
  group: DirectoryGroup;
  values: Values;
  rule: number | undefined;
  groupDns: ReadonlySet<string>;
}): PicturedGroup {
  const { group } = o;
  const members = [...new Set(group.members)];
  return {
    id: normaliseDn(group.dn),
    name: group.dn,
    ...(o.rule !== undefined ? { rule: o.rule } : {}),
    attributes: attributesOfValues(o.values),
    people: members.filter((m) => !o.groupDns.has(m)).sort(),
    groups: members.filter((m) => o.groupDns.has(m)).sort(),
  };
}

/**
 * With `nested: inChain` (AD) the server gives a picked group's people at any depth, and a
 * group's parents (`memberOf`) rather than its members: the picture keeps those people on the
 * picked group and turns `memberOf` into the parents' nested groups.
 */
export async function inChainPeople(o: {
  config: LdapConfig;
  connection: LdapConnection;
  groupDn: string;
}): Promise<string[]> {
  const people = new Set<string>();
  const filter = `(&${o.config.userFilter}(memberOf:${IN_CHAIN_RULE}:=${escapeFilterValue(o.groupDn)}))`;
  for await (const page of o.connection.pages({ base: o.config.baseDn, filter, attributes: ["1.1"] }))
    for (const entry of page) people.add(normaliseDn(entry.dn));
  return [...people].sort();
}

/** The groups of one group search as the picture keeps them (people as `member` lists them). */
export function pictureGroupsOf(
  config: LdapConfig,
  found: { byDn: ReadonlyMap<string, DirectoryGroup>; picked: readonly Picked[] },
  groupDns?: ReadonlySet<string>,
): PicturedGroup[] {
  const { byDn, picked } = found;
  const all = groupDns ?? new Set(byDn.keys());
  const ruleOf = new Map(picked.map((p) => [p.group, config.groups.indexOf(p.rule)]));
  const valuesOfGroup = new Map(picked.map((p) => [p.group, p.values]));
  const out: PicturedGroup[] = [];
  for (const group of byDn.values()) {
    const values = valuesOfGroup.get(group) ?? new Map<string, string[]>();
    out.push(groupOf({ group, values, rule: ruleOf.get(group), groupDns: all }));
  }
  return out;
}

/** Every group under the group base as the picture keeps it, with the rule that picks each. */
export async function readPictureGroups(
  config: LdapConfig,
  connection: LdapConnection,
  filter = config.groupFilter,
  groupDns?: ReadonlySet<string>,
): Promise<PicturedGroup[]> {
  const found = await searchGroups(config, connection, filter);
  const out = pictureGroupsOf(config, found, groupDns);
  if (config.nested !== "inChain") return out;
  const skeleton = inChainSkeleton(out, found.byDn);
  for (const g of skeleton)
    if (g.rule !== undefined) g.people = await inChainPeople({ config, connection, groupDn: g.name });
  return skeleton;
}

/**
 * inChain: the groups as `readPictureGroups` gives them before their people are read (people
 * empty), nesting from `memberOf`; also what a changes-only read compares the picture with
 * (in-chain.ts).
 */
export function inChainSkeleton(
  groups: readonly PicturedGroup[],
  byDn: ReadonlyMap<string, DirectoryGroup>,
): (PicturedGroup & { people: string[]; groups: string[] })[] {
  const byId = new Map(groups.map((g) => [g.id, { ...g, people: [] as string[], groups: [] as string[] }]));
  for (const group of byDn.values())
    for (const parent of group.memberOf) byId.get(parent)?.groups.push(normaliseDn(group.dn));
  for (const g of byId.values()) g.groups.sort();
  return [...byId.values()];
}

/** The users of the user search as people, with the listing's tally. */
export async function readPicturePeople(
  config: LdapConfig,
  connection: LdapConnection,
  filter = config.userFilter,
): Promise<{ people: PicturedPerson[]; read: ReadTally }> {
  const people: PicturedPerson[] = [];
  let pages = 0;
  // With showDeleted the picture keys people by objectGUID too (tombstones.ts).
  const attributes =
    config.showDeleted === true ? [...userAttributes(config), "objectGUID"] : userAttributes(config);
  for await (const page of connection.pages({ base: config.baseDn, filter, attributes })) {
    pages += 1;
    for (const entry of page) people.push(personOf(entry));
  }
  return {
    people,
    read: {
      what: `users under ${config.baseDn} (${filter})`,
      announced: "unknown",
      pages,
      read: people.length,
    },
  };
}

/** The DNs a search finds (no attributes): how deletions and people leaving the filter show. */
export async function listDns(
  connection: LdapConnection,
  base: string,
  filter: string,
): Promise<{ dns: Set<string>; read: ReadTally }> {
  const dns = new Set<string>();
  let pages = 0;
  for await (const page of connection.pages({ base, filter, attributes: ["1.1"] })) {
    pages += 1;
    for (const entry of page) dns.add(normaliseDn(entry.dn));
  }
  return {
    dns,
    read: { what: `DNs under ${base} (${filter})`, announced: "unknown", pages, read: dns.size },
  };
}

/** Only the groups a picked group (or USERS) reaches, sorted: what applyChanges keeps too. */
export function prunedGroups(groups: readonly PicturedGroup[]): PicturedGroup[] {
  const byId = new Map(groups.map((g) => [g.id, g]));
  const kept = new Set<string>();
  for (const g of groups) if (g.rule !== undefined) for (const id of reachable(byId, g.id)) kept.add(id);
  return groups.filter((g) => kept.has(g.id)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
