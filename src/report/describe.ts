/**
 * What every renderer says about a plan, format-neutral: steps grouped by the object a person
 * thinks of (a user, a group) and the changed fields with before → after; plan-frame.ts says what
 * stands around them (header, notice sections). The text and Markdown renderers only lay these out.
 */
import { classifyPerson, personOfSteps, type PersonChange } from "../plan/summary.js";
import { nounOf, parseObjectKey, verbOf, type StepKindInfo, type Verb } from "../plan/kinds.js";
import { parseAssigneeKey } from "../permissions.js";
import type { Plan, Step } from "../plan/types.js";
import { grantText } from "./permission-lines.js";
import { FILTER_HELD_NOTE, filterFields, filterKeyInWords, isFilterStep } from "./filter-lines.js";

export type Mark = "+" | "~" | "-" | "!";

export interface FieldChange {
  field: string;
  before?: string;
  after?: string;
}

export interface StepView {
  symbol: Mark;
  /** `+` / `~` / `-` of the step itself, also for held-back steps (shown as `!`). */
  action: "+" | "~" | "-";
  noun: StepKindInfo["noun"];
  step: Step;
  fields: FieldChange[];
  note?: string;
}

export interface ObjectView {
  title: string;
  /** `members`: the bulk membership requests of one group; `permissions`: a workspace's (or the organization's) grants. */
  kind: "person" | "group" | "members" | "permissions";
  /** What happens to the object as a whole (a group is never revoked). */
  change: PersonChange;
  steps: StepView[];
  /**
   * Permissions: the net change of each assignee that more than one step changes (a grant, then
   * a revoke through a middle state), from its state before the first to after the last.
   */
  net?: FieldChange[];
}

/** Shown in lists before "… and N more". */
export const LIST_LIMIT = 20;

const PASSWORD_LABEL = {
  generate: "(generated)",
  file: "(from file)",
  column: "(set)",
  none: "(none)",
} as const;

export function formatValue(v: unknown): string {
  if (v === undefined) return "(none)";
  if (Array.isArray(v)) return `[${v.map((x) => formatValue(x)).join(", ")}]`;
  // The id the service gives the credentials created earlier in the same run.
  if (typeof v === "object" && v !== null && "fromStep" in v) return "(the new login's id)";
  return JSON.stringify(v);
}

/** Field names as a person says them (the plan's JSON keeps the API's names). */
const FIELD_WORDS: Record<string, string> = {
  authenticationId: "login id",
  displayName: "display name",
  firstname: "first name",
  lastname: "last name",
  parents: "parent groups",
};
export const fieldWord = (field: string): string => FIELD_WORDS[field] ?? field;

/** Planner reasons name fields by their API names ("groups, firstname differ"): say them in words. */
export const inWords = (text: string): string =>
  text.replace(/\b(authenticationId|displayName|firstname|lastname)\b/g, (k) => fieldWord(k));

/** An assignee key (`userGroup/sales`) in words: `group sales`. */
export function assigneeInWords(key: string): string {
  const a = parseAssigneeKey(key);
  return a === undefined ? key : `${a.type === "user" ? "user" : "group"} ${a.id}`;
}

/** Object keys of notices (`mapping:jane`, `idp:jane@x.com`, `group:g`, `permission:ws/userGroup/g`) in words. */
const OBJECT_WORDS = { mapping: "user", idp: "login", group: "group" } as const;
export function objectInWords(key: string): string {
  const ref = parseObjectKey(key);
  if (ref === undefined) return key;
  if (ref.kind === "orgPermission") return `organization permissions of ${assigneeInWords(ref.id)}`;
  if (ref.kind === "dataFilter") return filterKeyInWords(ref.id, assigneeInWords);
  if (ref.kind === "permission") {
    const at = ref.id.indexOf("/");
    return `permissions of ${assigneeInWords(ref.id.slice(at + 1))} on ${ref.id.slice(0, at)}`;
  }
  return `${OBJECT_WORDS[ref.kind]} ${ref.id}`;
}

const noun = (s: Step): StepView["noun"] => nounOf(s.kind);
const ACTION: Record<Verb, StepView["action"]> = { create: "+", update: "~", delete: "-" };
const action = (s: Step): StepView["action"] => ACTION[verbOf(s.kind)];

/** User ids of a bulk step: the first LIST_LIMIT, then how many more (the JSON plan has them all). */
function idList(ids: readonly string[]): string {
  const shown = ids.slice(0, LIST_LIMIT).map((id) => formatValue(id));
  const more = ids.length - shown.length;
  return `[${shown.join(", ")}${more > 0 ? `, … and ${more.toLocaleString("en-US")} more` : ""}]`;
}

function fields(s: Step): FieldChange[] {
  switch (s.kind) {
    case "addMembers":
      return [{ field: "join", after: idList(s.members) }];
    case "removeMembers":
      return [{ field: "leave", after: idList(s.members) }];
    case "createCredentials":
      return [
        // The login is made with the email as the file writes it; the plan keys it lower-cased.
        ...(s.after.email !== s.target ? [{ field: "email", after: formatValue(s.after.email) }] : []),
        { field: fieldWord("displayName"), after: formatValue(s.after.displayName) },
        { field: "password", after: PASSWORD_LABEL[s.after.password] },
      ];
    case "createGroup":
    case "createMapping":
      return Object.entries(s.after)
        .filter(([k]) => k !== "id")
        .map(([k, v]) => ({ field: fieldWord(k), after: formatValue(v) }));
    case "updateGroup":
    case "updateCredentials":
    case "updateMapping": {
      const before = s.before as unknown as Record<string, unknown>;
      const after = s.after as unknown as Record<string, unknown>;
      const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
      return keys
        .map((k) => ({ field: fieldWord(k), before: formatValue(before[k]), after: formatValue(after[k]) }))
        .filter((c) => c.before !== c.after);
    }
    case "grantWorkspacePermissions":
    case "revokeWorkspacePermissions":
    case "grantOrganizationPermissions":
    case "revokeOrganizationPermissions":
      return s.changes.map((c) => ({
        field: assigneeInWords(`${c.assignee.type}/${c.assignee.id}`),
        before: grantText(c.before),
        after: grantText(c.after),
      }));
    case "createDataFilter":
    case "updateDataFilter":
    case "deleteDataFilter":
      return filterFields(s, assigneeInWords);
    default:
      return [];
  }
}

const REVERT_HELD_NOTE =
  "held back: undoes what a recent run changed (the revert guard; use --allow-reverts)";

export function viewStep(s: Step): StepView {
  const a = action(s);
  const view: StepView = {
    symbol: s.status === "heldBack" ? "!" : a,
    action: a,
    noun: noun(s),
    step: s,
    fields: fields(s),
  };
  if (s.status === "heldBack")
    view.note = s.revertsRecent
      ? REVERT_HELD_NOTE
      : view.noun === "dataFilter"
        ? FILTER_HELD_NOTE
        : view.noun === "permissions"
          ? "held back: over permissions.maxRemovals (use --allow-permission-removals)"
          : "held back: over policy.maxDeletes (use --allow-deletes)";
  return view;
}

/**
 * Steps grouped by object: groups by id; bulk membership requests by group; credentials and
 * mapping steps by person (see personOfSteps), each with what happens to it as a whole.
 */
export function groupByObject(plan: Plan): ObjectView[] {
  const personOf = personOfSteps(plan.steps);
  const groups = new Map<string, ObjectView>();
  const members = new Map<string, ObjectView>();
  const users = new Map<string, ObjectView>();
  const access = new Map<string, ObjectView>();
  for (const s of plan.steps) {
    if (noun(s) === "permissions" || isFilterStep(s)) {
      const title = isFilterStep(s)
        ? `data filters on workspace ${s.workspace}`
        : s.kind.endsWith("OrganizationPermissions")
          ? "organization"
          : `workspace ${s.target}`;
      const obj = access.get(title) ?? { title, kind: "permissions", change: "change", steps: [] };
      obj.steps.push(viewStep(s));
      access.set(title, obj);
      continue;
    }
    const n = noun(s);
    const into = n === "group" ? groups : n === "members" ? members : users;
    const title =
      n === "group"
        ? `group ${s.target}`
        : n === "members"
          ? `members of group ${s.target}`
          : `user ${personOf.get(s.id) ?? s.target}`;
    const obj = into.get(title) ?? {
      title,
      kind: n === "members" ? "members" : "group",
      change: "change",
      steps: [],
    };
    obj.steps.push(viewStep(s));
    into.set(title, obj);
  }
  for (const obj of access.values()) {
    const net = netChanges(obj.steps);
    if (net.length > 0) obj.net = net;
  }
  for (const g of groups.values()) {
    const kind = g.steps[0]?.step.kind;
    g.change = kind === "createGroup" ? "add" : kind === "deleteGroup" ? "remove" : "change";
  }
  for (const u of users.values()) {
    u.kind = "person";
    u.change = classifyPerson(u.steps.map((v) => v.step));
  }
  // Groups in plan order (parents first), their bulk moves, then users by name, like terraform's
  // sorted addresses.
  const byTitle = (a: ObjectView, b: ObjectView): number =>
    a.title < b.title ? -1 : a.title > b.title ? 1 : 0;
  return [...groups.values(), ...members.values(), ...[...users.values()].sort(byTitle), ...access.values()];
}

/** Per assignee changed by two or more steps that will run: before the first → after the last. */
function netChanges(steps: readonly StepView[]): FieldChange[] {
  const byAssignee = new Map<string, FieldChange[]>();
  for (const v of steps) {
    if (v.noun !== "permissions" || v.step.status === "heldBack") continue;
    for (const f of v.fields) byAssignee.set(f.field, [...(byAssignee.get(f.field) ?? []), f]);
  }
  return [...byAssignee.values()]
    .filter((changes) => changes.length > 1)
    .map((changes) => ({
      field: changes[0]!.field,
      before: changes[0]!.before ?? "(none)",
      after: changes[changes.length - 1]!.after ?? "(none)",
    }));
}
