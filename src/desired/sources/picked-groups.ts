/**
 * The groups a directory's rules pick, and the user groups they become, the same way for every
 * directory that picks by rule: each rule picks its groups concurrently (the directory's own
 * way), a group two rules pick belongs to the first, and each picked group becomes a user group
 * by the shared group rule (group-rule.ts) over its attributes. A directory adds only how a rule
 * picks, and a group's id, attributes and label (google/groups.ts, okta/groups.ts).
 */
import type { RecordContext } from "../records.js";
import type { DesiredGroup, ReadTally } from "../types.js";
import { applyGroupRule, type GroupRule } from "./group-rule.js";
import type { Values } from "./template.js";
import { settleRules } from "./vanished-groups.js";

export interface PickedGroup<G, R extends GroupRule> {
  group: G;
  rule: R;
  /** The rule's place, for messages: `source.okta.groups[2]`. */
  ruleKey: string;
}

/** A directory's way with its groups. */
export interface GroupKind<G> {
  /** `source.google`: the rules are `source.google.groups[i]`. */
  setting: string;
  /** The prefix of its groups' keys in the group sizes (`google:`): the key is prefix + idOf. */
  keyPrefix: string;
  idOf(group: G): string | undefined;
  /** The directory's name attribute as a template (`{name}`): the default id and name. */
  nameTemplate: string;
  /** A group's attributes for the templates. */
  values(group: G): Values;
  /** A group in messages: `google group analytics@example.com (03abc…)`. */
  label(group: G): string;
}

/** Every picked group once, in rule order (the first rule that picks a group wins); each listing's tally. */
export async function pickGroups<G, R extends GroupRule>(o: {
  kind: GroupKind<G>;
  rules: readonly R[];
  /** The groups one rule picks, with the listing's tally; a rule that picks nothing throws NoSuchGroupError. */
  pick: (rule: R, ruleKey: string) => Promise<{ groups: G[]; read: ReadTally }>;
}): Promise<{ picked: PickedGroup<G, R>[]; reads: ReadTally[] }> {
  const keyOf = (i: number) => `${o.kind.setting}.groups[${i}]`;
  const answers = await settleRules(
    o.rules.map((rule, i) => o.pick(rule, keyOf(i))),
    {
      prefix: o.kind.keyPrefix,
      keysOf: (a) => a.groups.map((g) => `${o.kind.keyPrefix}${o.kind.idOf(g) ?? ""}`),
    },
  );
  const picked = new Map<string, PickedGroup<G, R>>();
  answers.forEach((a, i) => {
    for (const group of a.groups) {
      const id = o.kind.idOf(group);
      if (id !== undefined && !picked.has(id))
        picked.set(id, { group, rule: o.rules[i]!, ruleKey: keyOf(i) });
    }
  });
  return { picked: [...picked.values()], reads: answers.map((a) => a.read) };
}

/** The picked groups as user groups (problems in `ctx`), and the user group of each picked group's id. */
export function userGroups<G, R extends GroupRule>(
  picked: readonly PickedGroup<G, R>[],
  kind: GroupKind<G>,
  ctx: RecordContext,
): { groups: DesiredGroup[]; userGroupOf: Map<string, string> } {
  const groups: DesiredGroup[] = [];
  const userGroupOf = new Map<string, string>();
  for (const p of picked) {
    const g = applyGroupRule({
      rule: p.rule,
      values: kind.values(p.group),
      nameTemplate: kind.nameTemplate,
      group: kind.label(p.group),
      ruleKey: p.ruleKey,
      ctx,
    });
    if (g === undefined) continue;
    groups.push(g);
    const id = kind.idOf(p.group);
    if (id !== undefined) userGroupOf.set(id, g.id);
  }
  return { groups, userGroupOf };
}
