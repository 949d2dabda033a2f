/**
 * What every renderer says about a plan, format-neutral: steps grouped by the object a person
 * thinks of (a user, a group), the changed fields with before → after, notice sections and the
 * summary line. The text and Markdown renderers only lay these out.
 */
import { kindOfStepId, nounOf, parseObjectKey, verbOf, type Verb } from "../plan/kinds.js";
import type { Notice, Plan, Step } from "../plan/types.js";

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
  noun: "group" | "credentials" | "mapping";
  step: Step;
  fields: FieldChange[];
  note?: string;
}

export interface ObjectView {
  title: string;
  steps: StepView[];
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
  if (typeof v === "object" && v !== null && "fromStep" in v)
    return `(from ${String((v as { fromStep: unknown }).fromStep)})`;
  return JSON.stringify(v);
}

const noun = (s: Step): StepView["noun"] => nounOf(s.kind);
const ACTION: Record<Verb, StepView["action"]> = { create: "+", update: "~", delete: "-" };
const action = (s: Step): StepView["action"] => ACTION[verbOf(s.kind)];
const isNounStep = (id: string, n: StepView["noun"]): boolean => {
  const kind = kindOfStepId(id);
  return kind !== undefined && nounOf(kind) === n;
};

function fields(s: Step): FieldChange[] {
  switch (s.kind) {
    case "createCredentials":
      return [
        { field: "displayName", after: formatValue(s.after.displayName) },
        { field: "password", after: PASSWORD_LABEL[s.after.password] },
      ];
    case "createGroup":
    case "createMapping":
      return Object.entries(s.after)
        .filter(([k]) => k !== "id")
        .map(([k, v]) => ({ field: k, after: formatValue(v) }));
    case "updateGroup":
    case "updateCredentials":
    case "updateMapping": {
      const before = s.before as unknown as Record<string, unknown>;
      const after = s.after as unknown as Record<string, unknown>;
      const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
      return keys
        .map((k) => ({ field: k, before: formatValue(before[k]), after: formatValue(after[k]) }))
        .filter((c) => c.before !== c.after);
    }
    default:
      return [];
  }
}

export function viewStep(s: Step): StepView {
  const a = action(s);
  const view: StepView = {
    symbol: s.status === "heldBack" ? "!" : a,
    action: a,
    noun: noun(s),
    step: s,
    fields: fields(s),
  };
  if (s.status === "heldBack") view.note = "held back: over policy.maxDeletes (use --allow-deletes)";
  return view;
}

/**
 * Steps grouped by object: groups by id; credentials and mapping steps by user, linking
 * credentials to the mapping step that depends on them (or that they depend on).
 */
export function groupByObject(plan: Plan): ObjectView[] {
  const userOf = new Map<string, string>();
  const userOfEmail = new Map<string, string>();
  for (const s of plan.steps) {
    if (noun(s) !== "mapping") continue;
    userOf.set(s.id, s.target);
    for (const d of s.dependsOn) if (isNounStep(d, "credentials")) userOf.set(d, s.target);
    for (const ref of s.touches.map(parseObjectKey))
      if (ref?.kind === "idp") userOfEmail.set(ref.id, s.target);
  }
  for (const s of plan.steps)
    if (noun(s) === "credentials")
      for (const d of s.dependsOn) if (isNounStep(d, "mapping")) userOf.set(s.id, userOf.get(d) ?? s.target);
  const groups = new Map<string, ObjectView>();
  const users = new Map<string, ObjectView>();
  for (const s of plan.steps) {
    const n = noun(s);
    const [into, title] =
      n === "group"
        ? [groups, `group ${s.target}`]
        : [users, `user ${userOf.get(s.id) ?? userOfEmail.get(s.target) ?? s.target}`];
    const obj = into.get(title) ?? { title, steps: [] };
    obj.steps.push(viewStep(s));
    into.set(title, obj);
  }
  // Groups in plan order (parents first), then users by name, like terraform's sorted addresses.
  const byTitle = (a: ObjectView, b: ObjectView): number =>
    a.title < b.title ? -1 : a.title > b.title ? 1 : 0;
  return [...groups.values(), ...[...users.values()].sort(byTitle)];
}

export interface NoticeSection {
  title: string;
  notices: Notice[];
}

/** Protected and refused first (they are shown with `!`), then what was left alone. */
export function noticeSections(plan: Plan): NoticeSection[] {
  const by = (kinds: Notice["kind"][]) => plan.notices.filter((n) => kinds.includes(n.kind));
  return [
    { title: "Protected or refused", notices: by(["protected", "refused"]) },
    { title: "Conflicts", notices: by(["conflict"]) },
    { title: "Kept (policy.deletions: none)", notices: by(["kept"]) },
    { title: "Unmanaged (outside policy.scope)", notices: by(["unmanaged"]) },
    { title: "Unlinked credentials", notices: by(["unlinked"]) },
  ].filter((s) => s.notices.length > 0);
}

export function renderPlanSummaryLine(plan: Plan): string {
  const c = plan.counts;
  if (plan.steps.length === 0) return "No changes. The organization matches the desired state.";
  return `Plan: ${c.create} to create, ${c.update} to update, ${c.delete} to delete, ${c.heldBack} held back.`;
}

export function estimateLine(plan: Plan): string {
  const { requests, seconds } = plan.estimate;
  return `Estimate: ${requests} request${requests === 1 ? "" : "s"}, about ${seconds} s at the configured limits.`;
}

export function guardLine(plan: Plan): string {
  const g = plan.deleteGuard;
  const verdict = g.wanted > g.limit ? "deletions are held back" : "within the limit";
  return `Deletion guard: ${g.wanted} user deletion${g.wanted === 1 ? "" : "s"} wanted, ${g.limit} allowed (${g.managedUsers} managed users): ${verdict}.`;
}

export function headerLines(plan: Plan, dryRun: boolean): string[] {
  return [
    ...(dryRun ? ["DRY RUN — nothing will be changed"] : []),
    `Mode ${plan.mode} · profile ${plan.profile} · membership ${plan.membership} · deletions ${plan.deletions}`,
  ];
}
