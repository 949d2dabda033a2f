/**
 * A group rule applied to one picked directory group, the same way for every directory
 * (docs/sources.md, "Group rules"): the `id` template made a valid id (`Sales Team` ->
 * `sales_team`), the `name` template, static `parents`, and `workspaces`, `dataFilters` and
 * `organization` with their templates filled in from the group's attributes. Each reader picks its
 * groups its own way, turns a picked group's attributes into `Values` and calls `applyGroupRule`;
 * `parents: directory` is then set by the reader, which alone knows the directory's nesting.
 */
import { validIdOf } from "../ids.js";
import { normaliseGroup, type GroupField, type RawRecord, type RecordContext } from "../records.js";
import type { DesiredGroup } from "../types.js";
import type { GroupRule } from "./group-rule-schema.js";
import { attributesOf, evaluate, type Values } from "./template.js";

export type { GroupRule } from "./group-rule-schema.js";
export { GROUP_RULE_FIELDS, groupRuleSchema } from "./group-rule-schema.js";

export interface ApplyGroupRule {
  rule: GroupRule;
  /** The picked group's attributes (names lower-cased). */
  values: Values;
  /** The directory's name attribute as a template (`{cn}`, `{displayName}`, `{name}`): the default id and name. */
  nameTemplate: string;
  /** The group in messages: its DN, or `Entra ID group Sales (<object id>)`. */
  group: string;
  /** The rule in messages: `source.entra.groups[2]`. */
  ruleKey: string;
  ctx: RecordContext;
}

/** Every template a rule holds, so a reader asks the directory for the attributes they read. */
export function ruleTemplates(rule: GroupRule, nameTemplate: string): string[] {
  const templates = [
    rule.id ?? nameTemplate,
    rule.name ?? nameTemplate,
    ...Object.keys(rule.workspaces ?? {}),
  ];
  for (const [key, spec] of Object.entries(rule.dataFilters ?? {})) {
    templates.push(key);
    const values = (spec as { values?: unknown } | null)?.values;
    if (Array.isArray(values)) templates.push(...values.filter((v): v is string => typeof v === "string"));
  }
  return templates;
}

/** The attribute names (lower-cased) the templates of these rules read. */
export function ruleAttributes(rules: readonly GroupRule[], nameTemplate: string): string[] {
  return [...new Set(rules.flatMap((r) => ruleTemplates(r, nameTemplate).flatMap(attributesOf)))];
}

/** The user group a rule makes of one picked group; `undefined` with its problems in `ctx`. */
export function applyGroupRule(o: ApplyGroupRule): DesiredGroup | undefined {
  const { rule, values } = o;
  const idTemplate = rule.id ?? o.nameTemplate;
  const nameTemplate = rule.name ?? o.nameTemplate;
  const id = evaluate(idTemplate, values);
  const name = evaluate(nameTemplate, values);
  const raw: RawRecord<GroupField> = {
    line: 0,
    text: {
      ...(id !== undefined ? { id: validIdOf(id, rule.lowerCase) } : {}),
      ...(name !== undefined ? { name } : {}),
    },
    lists: Array.isArray(rule.parents) ? { parents: rule.parents } : {},
    values: {
      ...(rule.workspaces !== undefined ? { workspaces: withKeys(rule.workspaces, rule, values) } : {}),
      ...(rule.dataFilters !== undefined ? { dataFilters: dataFilters(rule, values) } : {}),
      ...(rule.organization !== undefined ? { organization: rule.organization } : {}),
    },
    where: (field) => ({
      file: o.group,
      field:
        field === "id"
          ? idTemplate
          : field === "name"
            ? nameTemplate
            : field === "parents"
              ? `${o.ruleKey}.parents`
              : `${o.ruleKey}.${field}`,
    }),
  };
  return normaliseGroup(raw, o.ctx);
}

/**
 * A workspace key filled in from the group: a templated key (`"ws-{cn}"`) is made a valid id like
 * the group's id; a literal key is a workspace's id as written (a wrong one is reported as such).
 */
function workspaceKey(key: string, rule: GroupRule, values: Values): string {
  const filled = key.includes("{") ? evaluate(key, values) : undefined;
  return filled === undefined ? key : validIdOf(filled, rule.lowerCase);
}

function withKeys(spec: Record<string, unknown>, rule: GroupRule, values: Values): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(spec)) out[workspaceKey(key, rule, values)] = value;
  return out;
}

/**
 * A rule's data filters with each workspace key and each value's template filled in from the
 * group (`values: ["{department}"]` -> `["Sales"]`); a value naming an attribute the group lacks
 * stays as written, and the desired-state reader then refuses what cannot be a MAQL value.
 */
function dataFilters(rule: GroupRule, values: Values): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(rule.dataFilters ?? {})) {
    const s = spec as { values?: unknown } | null;
    out[workspaceKey(key, rule, values)] =
      s && typeof s === "object" && Array.isArray(s.values)
        ? { ...s, values: s.values.map((v) => (typeof v === "string" ? (evaluate(v, values) ?? v) : v)) }
        : spec;
  }
  return out;
}
