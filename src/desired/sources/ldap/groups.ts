/**
 * Directory groups → user groups. Every group under the group base is read (paged) once; rules
 * pick the ones that become user groups and derive their id and name. Membership is expanded
 * through nesting: by walking `member` (any server), or by AD's matching rule in chain
 * (`memberOf:1.2.840.113556.1.4.1941:`), where the server expands it. Groups no rule picks still
 * carry membership through (a team inside an unmapped department is still in the division).
 * Ranged values (AD groups past MaxValRange) are read in full: see ranged.ts.
 */
import type { DesiredGroup } from "../../types.js";
import { visible } from "../../characters.js";
import type { RecordContext } from "../../records.js";
import { applyGroupRule, ruleAttributes } from "../group-rule.js";
import type { LdapConfig, LdapConnection } from "./client.js";
import { firstRange, remainingRange } from "./ranged.js";
import { globMatcher, normaliseDn, valuesOf, type Values } from "./template.js";

type Rule = LdapConfig["groups"][number];

/** An LDAP group's name: the default id and name of the user group it becomes. */
const NAME = "{cn}";

export interface DirectoryGroup {
  dn: string;
  /** Normalised DNs of the entries listed as members (users and groups). */
  members: string[];
  /** Normalised DNs of the groups this one is a member of (AD `memberOf`). */
  memberOf: string[];
  /** The user group it becomes, if a rule picks it. */
  id?: string;
}

export type Picked = { group: DirectoryGroup; rule: Rule; values: Values };

export interface DirectoryGroups {
  groups: DesiredGroup[];
  /** The user-group ids of one user (by normalised DN), nesting expanded; sorted. */
  groupsOf(userDn: string): string[];
}

export const IN_CHAIN_RULE = "1.2.840.113556.1.4.1941";

export function escapeFilterValue(value: string): string {
  return value.replace(/[\\*()\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** A filter written without its parentheses too, with them. */
export function parenthesized(filter: string): string {
  return filter.trim().startsWith("(") ? filter.trim() : `(${filter.trim()})`;
}

/** The entries of `filter` (a filter written without its parentheses too) the clause finds. */
export function since(filter: string, clause: string): string {
  return `(&${parenthesized(filter)}${clause})`;
}

/** Work left for after the paged search: reading the rest of a ranged attribute. */
type Remaining = (connection: LdapConnection) => Promise<void>;

/**
 * A group as its search entry gives it. A `member` or `memberOf` that came ranged (AD, past
 * MaxValRange) holds its first range here; `remaining` gets the reads that add the rest.
 */
function toDirectoryGroup(dn: string, values: Values, remaining: Remaining[]): DirectoryGroup {
  const list = (name: string): string[] => {
    const { values: first, next } = firstRange(values, name, dn);
    const dns = first.map((v) => normaliseDn(String(v)));
    if (next !== undefined)
      remaining.push(async (connection) => {
        for (const v of await remainingRange(connection, { dn, name, next }))
          dns.push(normaliseDn(String(v)));
      });
    return dns;
  };
  return { dn, members: list("member"), memberOf: list("memberOf") };
}

/**
 * Reads every group under the group base once (or those `filter` finds there: the changes-only
 * reader asks for the groups changed since a time); notes the ones a rule picks, with that rule.
 */
export async function searchGroups(
  config: LdapConfig,
  connection: LdapConnection,
  filter = config.groupFilter,
): Promise<{ byDn: Map<string, DirectoryGroup>; picked: Picked[] }> {
  const rules = config.groups.map((rule) => ({
    rule,
    dn: rule.dn !== undefined ? globMatcher(rule.dn) : () => true,
    cn: rule.cn !== undefined ? globMatcher(rule.cn) : () => true,
  }));
  const wanted = new Set(["cn", config.nested === "inChain" ? "memberOf" : "member"]);
  ruleAttributes(config.groups, NAME).forEach((a) => wanted.add(a));

  const byDn = new Map<string, DirectoryGroup>();
  const picked: Picked[] = [];
  const remaining: Remaining[] = [];
  for await (const page of connection.pages({
    base: config.groupBaseDn ?? config.baseDn,
    filter,
    attributes: [...wanted],
  })) {
    for (const entry of page) {
      const values = valuesOf(entry);
      const group = toDirectoryGroup(entry.dn, values, remaining);
      byDn.set(normaliseDn(entry.dn), group);
      const cn = String(values.get("cn")?.[0] ?? "");
      const match = rules.find((r) => r.dn(entry.dn) && r.cn(cn));
      if (match) picked.push({ group, rule: match.rule, values });
    }
  }
  for (const read of remaining) await read(connection);
  return { byDn, picked };
}

export async function readDirectoryGroups(options: {
  config: LdapConfig;
  connection: LdapConnection;
  ctx: RecordContext;
}): Promise<DirectoryGroups> {
  const { config, connection, ctx } = options;
  const { byDn, picked } = await searchGroups(config, connection);
  const parentsOf = parentMap(byDn, config.nested);
  const made: { group: DirectoryGroup; rule: Rule; desired: DesiredGroup }[] = [];
  for (const { group, rule, values } of picked) {
    const desired = applyGroupRule({
      rule,
      values,
      nameTemplate: NAME,
      group: visible(group.dn),
      ruleKey: `source.ldap.groups[${config.groups.indexOf(rule)}]`,
      ctx,
    });
    if (desired) {
      group.id = desired.id;
      made.push({ group, rule, desired });
    }
  }
  // Parents once every picked group has its id, so the nearest user group above is known.
  for (const { group, rule, desired } of made)
    if (rule.parents === "directory") desired.parents = nearestMapped(normaliseDn(group.dn), byDn, parentsOf);
  const groups = made.map((m) => m.desired);
  const closure = closures(byDn, parentsOf, config.nested !== "none");

  const direct = new Map<string, Set<string>>();
  for (const [dn, group] of byDn)
    for (const member of group.members)
      if (!byDn.has(member)) (direct.get(member) ?? direct.set(member, new Set()).get(member)!).add(dn);
  if (config.nested === "inChain") await readInChain({ config, connection, picked, direct });

  return {
    groups,
    groupsOf(userDn) {
      const ids = new Set<string>();
      for (const g of direct.get(userDn) ?? []) for (const id of closure(g)) ids.add(id);
      return [...ids].sort();
    },
  };
}

/** Normalised group DN -> the normalised DNs of the groups it is directly in. */
function parentMap(byDn: Map<string, DirectoryGroup>, nested: LdapConfig["nested"]): Map<string, string[]> {
  const parents = new Map<string, string[]>();
  const add = (child: string, parent: string): void => {
    if (byDn.has(child) && byDn.has(parent))
      (parents.get(child) ?? parents.set(child, []).get(child)!).push(parent);
  };
  for (const [dn, group] of byDn) {
    if (nested === "inChain") group.memberOf.forEach((p) => add(dn, p));
    else group.members.forEach((m) => add(m, dn));
  }
  return parents;
}

/** The user-group ids a member of a group is in: the group's own and, with nesting, every ancestor's. */
function closures(
  byDn: Map<string, DirectoryGroup>,
  parentsOf: Map<string, string[]>,
  nested: boolean,
): (dn: string) => string[] {
  const memo = new Map<string, string[]>();
  const walk = (dn: string, seen: Set<string>): string[] => {
    const known = memo.get(dn);
    if (known) return known;
    const ids = new Set<string>();
    const own = byDn.get(dn)?.id;
    if (own !== undefined) ids.add(own);
    seen.add(dn);
    if (nested)
      for (const p of parentsOf.get(dn) ?? []) if (!seen.has(p)) walk(p, seen).forEach((id) => ids.add(id));
    seen.delete(dn);
    const list = [...ids];
    memo.set(dn, list);
    return list;
  };
  return (dn) => walk(dn, new Set());
}

/** The closest user groups above a group, looking through groups no rule picked. */
function nearestMapped(
  dn: string,
  byDn: Map<string, DirectoryGroup>,
  parentsOf: Map<string, string[]>,
): string[] {
  const found = new Set<string>();
  const seen = new Set<string>([dn]);
  const queue = [...(parentsOf.get(dn) ?? [])];
  while (queue.length > 0) {
    const p = queue.shift()!;
    if (seen.has(p)) continue;
    seen.add(p);
    const id = byDn.get(p)?.id;
    if (id !== undefined) found.add(id);
    else queue.push(...(parentsOf.get(p) ?? []));
  }
  return [...found].sort();
}

/** AD: the server lists every user in a picked group at any depth; one paged search per group. */
async function readInChain(options: {
  config: LdapConfig;
  connection: LdapConnection;
  picked: { group: DirectoryGroup }[];
  direct: Map<string, Set<string>>;
}): Promise<void> {
  const { config, connection, picked, direct } = options;
  direct.clear();
  for (const { group } of picked) {
    if (group.id === undefined) continue;
    const filter = `(&${config.userFilter}(memberOf:${IN_CHAIN_RULE}:=${escapeFilterValue(group.dn)}))`;
    for await (const page of connection.pages({ base: config.baseDn, filter, attributes: ["1.1"] }))
      for (const entry of page) {
        const user = normaliseDn(entry.dn);
        (direct.get(user) ?? direct.set(user, new Set()).get(user)!).add(normaliseDn(group.dn));
      }
  }
}
