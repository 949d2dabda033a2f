/**
 * The LDAP desired state from a picture (picture.ts): the same rules as the whole reader
 * (index.ts, groups.ts) over what the picture keeps, so a whole read and a changes-only read give
 * the same desired state. The people are USERS' members; each person's groups are the picked
 * groups above the groups that list them (nesting followed unless `nested: none`); a group with
 * `parents: directory` gets the nearest picked groups above it, looking through unpicked ones.
 * A partial build (BuildInput.only, changes/partial.ts) builds only the people listed, each with
 * the line and groups a whole build gives them; the emptiness check and the group sizes stay the
 * whole state's, counted from the picture (every member of USERS, whatever their record reads).
 */
import { visible } from "../../characters.js";
import { ProblemList } from "../../problems.js";
import { normaliseUser, type RecordContext } from "../../records.js";
import type { DesiredGroup, DesiredUser } from "../../types.js";
import type { BuildInput, Picture, PicturedGroup } from "../changes/feed.js";
import type { SourceResult } from "../contract.js";
import { applyGroupRule } from "../group-rule.js";
import type { LdapConfig } from "./client.js";
import { ldapResult, mappedFields, userRecord } from "./index.js";
import { DN, USERS, valuesOfAttributes } from "./picture.js";

/** Group id -> the ids of the groups it is directly in. */
function parentsOf(groups: readonly PicturedGroup[]): Map<string, string[]> {
  const parents = new Map<string, string[]>();
  for (const g of groups)
    for (const child of g.groups) (parents.get(child) ?? parents.set(child, []).get(child)!).push(g.id);
  return parents;
}

/** Every picked group above `from` (itself included), through any depth when `nested`. */
function above(from: string, parents: Map<string, string[]>, nested: boolean): Set<string> {
  const seen = new Set<string>([from]);
  const todo = nested ? [...(parents.get(from) ?? [])] : [];
  while (todo.length > 0) {
    const id = todo.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    todo.push(...(parents.get(id) ?? []));
  }
  return seen;
}

/** The nearest mapped groups above a group, looking through unmapped ones (groups.ts's rule). */
function nearestMapped(id: string, parents: Map<string, string[]>, mapped: Map<string, string>): string[] {
  const found = new Set<string>();
  const seen = new Set<string>([id]);
  const queue = [...(parents.get(id) ?? [])];
  while (queue.length > 0) {
    const p = queue.shift()!;
    if (seen.has(p)) continue;
    seen.add(p);
    const own = mapped.get(p);
    if (own !== undefined) found.add(own);
    else queue.push(...(parents.get(p) ?? []));
  }
  return [...found].sort();
}

function userGroups(
  config: LdapConfig,
  picture: Picture,
  ctx: RecordContext,
): { groups: DesiredGroup[]; groupsOf: (person: string) => string[] } {
  const parents = parentsOf(picture.groups);
  const mapped = new Map<string, string>();
  const made: { g: PicturedGroup; desired: DesiredGroup }[] = [];
  for (const g of picture.groups) {
    if (g.rule === undefined || g.rule < 0) continue;
    const rule = config.groups[g.rule];
    if (rule === undefined) continue;
    const desired = applyGroupRule({
      rule,
      values: valuesOfAttributes(g.attributes),
      nameTemplate: "{cn}",
      group: visible(g.name),
      ruleKey: `source.ldap.groups[${g.rule}]`,
      ctx,
    });
    if (desired === undefined) continue;
    mapped.set(g.id, desired.id);
    made.push({ g, desired });
  }
  for (const { g, desired } of made)
    if (config.groups[g.rule!]?.parents === "directory")
      desired.parents = nearestMapped(g.id, parents, mapped);
  const nested = config.nested !== "none";
  const direct = new Map<string, Set<string>>();
  for (const g of picture.groups) {
    if (g.id === USERS) continue;
    for (const p of g.people) (direct.get(p) ?? direct.set(p, new Set()).get(p)!).add(g.id);
  }
  // Each group's picked groups above it, found once per group (not once per person in it).
  const reaching = new Map<string, string[]>();
  const mappedAbove = (g: string) => {
    let ids = reaching.get(g);
    if (ids === undefined) {
      ids = [];
      for (const a of above(g, parents, nested)) {
        const id = mapped.get(a);
        if (id !== undefined) ids.push(id);
      }
      reaching.set(g, ids);
    }
    return ids;
  };
  return {
    groups: made.map((m) => m.desired),
    groupsOf(person) {
      const ids = new Set<string>();
      for (const g of direct.get(person) ?? []) for (const id of mappedAbove(g)) ids.add(id);
      return [...ids].sort();
    },
  };
}

/** BuildDesired for LDAP; `config` is `source.ldap`. */
export function buildLdapDesired(config: LdapConfig, input: BuildInput): SourceResult {
  const problems = new ProblemList();
  const rc: RecordContext = input.rc ?? {
    problems,
    defaultIdentity: input.ctx.defaultIdentity,
    passwordWarned: { value: false },
    lists: new Map(),
  };
  const { picture } = input;
  const withGroups = config.groups.length > 0;
  const { groups, groupsOf } = userGroups(config, picture, rc);
  const people = new Map(picture.people.map((p) => [p.id, p]));
  const map = mappedFields(config);
  const users: DesiredUser[] = [];
  // The whole state's counts, from the picture (a partial build builds some people only).
  const sizes = new Map<string, number>(groups.map((g) => [g.id, 0]));
  let line = 0;
  for (const id of picture.groups.find((g) => g.id === USERS)?.people ?? []) {
    const person = people.get(id);
    if (person === undefined) continue;
    line += 1;
    const theirs = withGroups ? groupsOf(id) : undefined;
    for (const g of theirs ?? []) if (sizes.has(g)) sizes.set(g, sizes.get(g)! + 1);
    if (input.only?.has(id) === false) continue; // a partial build (BuildInput.only)
    const raw = userRecord({
      dn: String(person.attributes[DN] ?? id),
      values: valuesOfAttributes(person.attributes),
      line,
      map,
      config,
      ...(theirs ? { groups: theirs } : {}),
    });
    const user = normaliseUser(raw, rc);
    if (user) users.push(user);
  }
  return ldapResult({
    config,
    users,
    groups,
    problems: rc.problems,
    reads: [...input.reads],
    whole: { people: line, groupSizes: sizes },
  });
}
