/**
 * Entra groups -> user groups, with the LDAP rules' shape (docs/ldap.md): a rule picks groups by
 * object id, by `displayName` or by an OData `$filter`; its `id` and `name` templates (`{displayName}`,
 * `{mailNickname}`, `{id}`, `{description}`) name the user group, the id made valid by the rule
 * the ids of derived users follow (lower case, `_` for anything outside `[a-z0-9._-]`); its
 * `workspaces` and `organization` attach access. The first rule that picks a group wins.
 */
import type { EntraConfig } from "../../../config/entra-schema.js";
import { deriveUserId } from "../../ids.js";
import { normaliseGroup, type GroupField, type RawRecord, type RecordContext } from "../../records.js";
import type { DesiredGroup } from "../../types.js";
import { attributesOf, evaluate, type Values } from "../ldap/template.js";

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

/** The group properties every rule's templates read, plus what the reader needs. */
export function groupProperties(config: EntraConfig): string[] {
  const names = new Set(["id", "displayName"]);
  for (const r of config.groups)
    for (const t of [r.id, r.name, ...Object.keys(r.workspaces ?? {})])
      for (const a of attributesOf(t)) {
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

/** A group's properties as template values (names matched case-insensitively, as for LDAP). */
function valuesOf(group: GraphGroupItem): Values {
  const values = new Map<string, string[]>();
  for (const [k, v] of Object.entries(group)) if (typeof v === "string") values.set(k.toLowerCase(), [v]);
  return values;
}

/** A user-group id from a template's text: the documented id rule (`Sales Team` -> `sales_team`). */
export function validGroupId(text: string): string {
  return deriveUserId(text);
}

export function toDesiredGroup(p: PickedGroup, ctx: RecordContext, source: string): DesiredGroup | undefined {
  const { rule, group } = p;
  const values = valuesOf(group);
  const id = evaluate(rule.id, values);
  const name = evaluate(rule.name, values);
  const workspaces: Record<string, unknown> = {};
  for (const [key, grant] of Object.entries(rule.workspaces ?? {}))
    workspaces[key.includes("{") ? validGroupId(evaluate(key, values) ?? key) : key] = grant;
  const raw: RawRecord<GroupField> = {
    line: 0,
    text: {
      ...(id !== undefined ? { id: validGroupId(id) } : {}),
      ...(name !== undefined ? { name } : {}),
    },
    lists: Array.isArray(rule.parents) ? { parents: rule.parents } : {},
    values: {
      ...(rule.workspaces !== undefined ? { workspaces } : {}),
      ...(rule.organization !== undefined ? { organization: rule.organization } : {}),
    },
    where: (field) => ({
      file: `${source} group ${String(group["displayName"] ?? "")} (${group.id})`,
      field: field === "id" ? rule.id : field === "name" ? rule.name : `${p.ruleKey}.${field}`,
    }),
  };
  return normaliseGroup(raw, ctx);
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
