/**
 * Entra groups -> user groups. A rule picks groups by object id, by `displayName` or by an OData
 * `$filter`; the rest of it is the shared group rule (../group-rule.ts), over the group's
 * `{displayName}`, `{mailNickname}`, `{id}`, `{description}`. The first rule that picks a group wins.
 */
import type { EntraConfig } from "./schema.js";
import { visible } from "../../characters.js";
import type { RecordContext } from "../../records.js";
import type { DesiredGroup } from "../../types.js";
import { applyGroupRule, ruleAttributes } from "../group-rule.js";
import { textValues } from "../template.js";

export type Rule = EntraConfig["groups"][number];

/** A group as `/v1.0/groups` gives it ($select'ed). */
export type GraphGroupItem = Record<string, unknown> & { id: string };

export interface PickedGroup {
  group: GraphGroupItem;
  rule: Rule;
  /** The rule's place, for messages: `source.entra.groups[2]`. */
  ruleKey: string;
  /** The user group it becomes, once named. */
  desired?: DesiredGroup;
}

/** An Entra group's name: the default id and name of the user group it becomes. */
const NAME = "{displayName}";

/** The group properties Graph can give that the rules' templates read, plus what the reader needs. */
export function groupProperties(config: EntraConfig): string[] {
  const names = new Set(["id", "displayName"]);
  for (const a of ruleAttributes(config.groups, NAME)) {
    const known = ["id", "displayName", "mailNickname", "description"].find((k) => k.toLowerCase() === a);
    if (known) names.add(known);
  }
  return [...names];
}

/** The scope line of a rule for the evidence: `displayName "Sales"`, `filter startswith(...)`. */
export function ruleScope(rule: Rule): string {
  if (rule.objectId !== undefined) return `group ${rule.objectId}`;
  if (rule.displayName !== undefined) return `group named ${JSON.stringify(rule.displayName)}`;
  return `groups where ${rule.filter}`;
}

export function toDesiredGroup(p: PickedGroup, ctx: RecordContext, source: string): DesiredGroup | undefined {
  return applyGroupRule({
    rule: p.rule,
    values: textValues(p.group),
    nameTemplate: NAME,
    group: `${source} group ${visible(String(p.group["displayName"] ?? ""))} (${p.group.id})`,
    ruleKey: p.ruleKey,
    ctx,
  });
}

/**
 * `parents: directory`: the nearest picked groups a picked group is nested in. `nestedIn[a]` holds
 * every group below picked group `a` at any depth (transitiveMembers/microsoft.graph.group), so
 * an ancestor is nearest when no other ancestor sits between them.
 */
export function directoryParents(
  picked: readonly PickedGroup[],
  nestedIn: ReadonlyMap<string, ReadonlySet<string>>,
): void {
  for (const child of picked) {
    if (child.rule.parents !== "directory" || child.desired === undefined) continue;
    const ancestors = picked.filter((a) => a !== child && nestedIn.get(a.group.id)?.has(child.group.id));
    const nearest = ancestors.filter(
      (a) => !ancestors.some((c) => c !== a && nestedIn.get(a.group.id)?.has(c.group.id)),
    );
    child.desired.parents = [...new Set(nearest.flatMap((a) => (a.desired ? [a.desired.id] : [])))].sort();
  }
}
