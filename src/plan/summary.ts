/**
 * What a person decides on, derived from a plan's steps: people (not steps: a new built-in user
 * is two steps) to add, change, revoke or remove, groups, changed fields, membership moves per
 * group, the deletion guard and the estimate. Every renderer opens with it; the saved JSON plan
 * carries it as `summary` (derived data: a reader recomputes it and ignores the saved one).
 */
import { isMembersStep, kindOfStepId, nounOf, parseObjectKey, verbOf } from "./kinds.js";
import { addPermissions, type PermissionSummary } from "./permission-summary.js";
import type { Plan, Step } from "./types.js";

const isNounStep = (id: string, noun: ReturnType<typeof nounOf>): boolean => {
  const kind = kindOfStepId(id);
  return kind !== undefined && nounOf(kind) === noun;
};
/** The id of the first object of `kind` a step touches. */
const touched = (s: Step, kind: "idp" | "mapping"): string | undefined =>
  s.touches.map(parseObjectKey).find((ref) => ref?.kind === kind)?.id;

export type PersonChange = "add" | "change" | "revoke" | "remove";

export interface PlanSummary {
  /** People by what happens to them; `heldBack`: people with a held-back step (also in their kind). */
  people: Record<PersonChange, number> & { heldBack: number; fields: Record<string, number> };
  groups: { add: number; change: number; remove: number; heldBack: number; fields: Record<string, number> };
  /** Planned membership changes per group id: people joining (`add`) and leaving (`remove`). */
  membership: Record<string, { add: number; remove: number }>;
  /**
   * The part of `membership` moved by bulk requests (src/plan/bulk.ts): the people moved, the
   * requests, and per group the people joining and leaving and the requests that move them.
   */
  bulk: {
    people: number;
    requests: number;
    groups: Record<string, { add: number; remove: number; requests: number }>;
  };
  deleteGuard: Plan["deleteGuard"] & { heldBack: boolean };
  /** Only for plans that manage permissions (permission-summary.ts). */
  permissions?: PermissionSummary;
  /** Data filter steps by verb, only when the plan has some; `widenings`: the ids of the steps that widen. */
  dataFilters?: { create: number; update: number; delete: number; heldBack: number; widenings: string[] };
  permissionGuard?: NonNullable<Plan["permissionGuard"]> & { heldBack: boolean };
  estimate: Plan["estimate"];
  /** With `policy.revokeAfter`: people missing from the source who wait, and when the first goes. */
  pending?: { people: number; firstUntil: string };
  /** `plan.keptByMode`, when not zero. */
  keptByMode?: number;
  /** Workspace grants (assignee × workspace) incremental mode keeps unlisted: the `keptByMode` notices, when any. */
  permissionsKeptByMode?: number;
}

/**
 * The person each user step belongs to: the mapping's user id (credentials linked through
 * `dependsOn` or through the email a mapping step touches), else the credentials' email.
 */
export function personOfSteps(steps: readonly Step[]): Map<string, string> {
  const person = new Map<string, string>();
  const byEmail = new Map<string, string>();
  for (const s of steps) {
    if (nounOf(s.kind) !== "mapping") continue;
    person.set(s.id, s.target);
    for (const d of s.dependsOn) if (isNounStep(d, "credentials")) person.set(d, s.target);
    for (const ref of s.touches.map(parseObjectKey)) if (ref?.kind === "idp") byEmail.set(ref.id, s.target);
  }
  for (const s of steps) {
    if (s.kind === "deleteApiToken") person.set(s.id, s.userId);
    if (nounOf(s.kind) !== "credentials") continue;
    const viaStep = s.dependsOn.map((d) => (isNounStep(d, "mapping") ? person.get(d) : undefined));
    const viaTouch = touched(s, "mapping");
    const known = person.get(s.id);
    person.set(
      s.id,
      viaStep.find((p) => p !== undefined) ?? known ?? byEmail.get(s.target) ?? viaTouch ?? s.target,
    );
  }
  return person;
}

/** remove > add > revoke > change: a new person who also loses old credentials is still an add. */
export function classifyPerson(steps: readonly Step[]): PersonChange {
  const kinds = new Set(steps.map((s) => s.kind));
  if (kinds.has("deleteMapping")) return "remove";
  if (kinds.has("createMapping")) return "add";
  if (steps.some((s) => s.kind === "updateMapping" && s.revokesAccess)) return "revoke";
  const leaves = (s: Step): boolean => s.kind === "deleteCredentials" || s.kind === "deleteApiToken";
  if (steps.length > 0 && steps.every(leaves)) return "revoke";
  return "change";
}

const increment = (into: Record<string, number>, key: string): void => {
  into[key] = (into[key] ?? 0) + 1;
};

function changedFields(s: Step): string[] {
  if (isMembersStep(s)) return ["groups"];
  if (verbOf(s.kind) !== "update" || !("before" in s) || !("after" in s)) return [];
  const before = s.before as unknown as Record<string, unknown>;
  const after = s.after as unknown as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys.filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

function groupsOf(value: unknown): string[] {
  const g = (value as { groups?: unknown } | undefined)?.groups;
  return Array.isArray(g) ? (g as string[]) : [];
}

function addMembership(summary: PlanSummary, s: Step): void {
  if (s.status !== "planned") return;
  const entry = (g: string) => (summary.membership[g] ??= { add: 0, remove: 0 });
  if (isMembersStep(s)) {
    const op = s.kind === "addMembers" ? "add" : "remove";
    entry(s.target)[op] += s.members.length;
    const bulk = (summary.bulk.groups[s.target] ??= { add: 0, remove: 0, requests: 0 });
    bulk[op] += s.members.length;
    bulk.requests += 1;
    summary.bulk.requests += 1;
    return;
  }
  if (nounOf(s.kind) !== "mapping") return;
  const before = new Set("before" in s ? groupsOf(s.before) : []);
  const after = new Set("after" in s ? groupsOf(s.after) : []);
  for (const g of after) if (!before.has(g)) entry(g).add += 1;
  for (const g of before) if (!after.has(g)) entry(g).remove += 1;
}

/** The people a step is about: every member of a bulk step, else the one person (see personOfSteps). */
function peopleOf(s: Step, person: ReadonlyMap<string, string>): readonly string[] {
  return isMembersStep(s) ? s.members : [person.get(s.id) ?? s.target];
}

const byKey = <T>(record: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Steps held back by a guard of their own, not by `maxDeletes`. */
const OTHER_GUARDS: ReadonlySet<string> = new Set(["permissions", "dataFilter"]);

const GROUP_CHANGE = { create: "add", update: "change", delete: "remove" } as const;

/**
 * Summaries by plan. A plan is never changed once made, and one run renders, saves, logs and asks
 * about the same plan up to five times: at 20,000 people one summary takes about 0.3 s.
 */
const summaries = new WeakMap<Plan, PlanSummary>();

/** The plan's summary, computed once per plan object; callers read it and never change it. */
export function summarizePlan(plan: Plan): PlanSummary {
  let summary = summaries.get(plan);
  if (summary === undefined) {
    summary = computeSummary(plan);
    summaries.set(plan, summary);
  }
  return summary;
}

function computeSummary(plan: Plan): PlanSummary {
  const summary: PlanSummary = {
    people: { add: 0, change: 0, revoke: 0, remove: 0, heldBack: 0, fields: {} },
    groups: { add: 0, change: 0, remove: 0, heldBack: 0, fields: {} },
    membership: {},
    bulk: { people: 0, requests: 0, groups: {} },
    deleteGuard: {
      ...plan.deleteGuard,
      heldBack: plan.steps.some((s) => s.status === "heldBack" && !OTHER_GUARDS.has(nounOf(s.kind))),
    },
    estimate: { ...plan.estimate },
  };
  const perms = plan.steps.filter((s) => nounOf(s.kind) === "permissions");
  if (plan.permissionGuard !== undefined || perms.length > 0) {
    summary.permissions = addPermissions(perms);
    if (plan.permissionGuard)
      summary.permissionGuard = { ...plan.permissionGuard, heldBack: summary.permissions.heldBack > 0 };
  }
  const person = personOfSteps(plan.steps);
  const byPerson = new Map<string, Step[]>();
  for (const s of plan.steps) {
    if (nounOf(s.kind) === "permissions") continue;
    if (nounOf(s.kind) === "dataFilter") {
      const f = (summary.dataFilters ??= { create: 0, update: 0, delete: 0, heldBack: 0, widenings: [] });
      f[verbOf(s.kind)] += 1;
      if (s.status === "heldBack") f.heldBack += 1;
      if ("widening" in s && s.widening) f.widenings.push(s.id);
      continue;
    }
    if (nounOf(s.kind) === "group") {
      const kind = GROUP_CHANGE[verbOf(s.kind)];
      summary.groups[kind] += 1;
      if (s.status === "heldBack") summary.groups.heldBack += 1;
      for (const f of changedFields(s)) increment(summary.groups.fields, f);
      continue;
    }
    for (const key of peopleOf(s, person)) {
      const steps = byPerson.get(key);
      if (steps) steps.push(s);
      else byPerson.set(key, [s]);
    }
    addMembership(summary, s);
  }
  summary.bulk.people = new Set(plan.steps.filter(isMembersStep).flatMap((s) => s.members)).size;
  for (const steps of byPerson.values()) {
    summary.people[classifyPerson(steps)] += 1;
    if (steps.some((s) => s.status === "heldBack")) summary.people.heldBack += 1;
    const fields = new Set(steps.flatMap(changedFields));
    for (const f of fields) increment(summary.people.fields, f);
  }
  // A leaver whose revoke takes only grants or filters has no step of their own.
  summary.people.revoke += (plan.accessRevoked ?? []).filter((id) => !byPerson.has(id)).length;
  summary.membership = byKey(summary.membership);
  summary.bulk.groups = byKey(summary.bulk.groups);
  addWaiting(summary, plan);
  return summary;
}

/** Who waits (grace) and what only the mode keeps. */
function addWaiting(summary: PlanSummary, plan: Plan): void {
  const first = plan.grace?.pending[0];
  if (first) summary.pending = { people: plan.grace!.pending.length, firstUntil: first.until };
  if (plan.keptByMode) summary.keptByMode = plan.keptByMode;
  const kept = plan.notices.filter((n) => n.kind === "keptByMode").length;
  if (kept > 0) summary.permissionsKeptByMode = kept;
}

/**
 * What an apply carried out, as a summary: the people and groups all of whose steps succeeded
 * (a person whose login was created but whose user failed is not "added"; a person moved in
 * bulk is done when every bulk step that moves them succeeded).
 */
export function summarizeDone(plan: Plan, succeeded: ReadonlySet<string>): PlanSummary {
  const person = personOfSteps(plan.steps);
  // Groups and people have separate ids: a group "sales" and a user "sales" are not one thing.
  const keysOf = (s: Step): readonly string[] =>
    nounOf(s.kind) === "group"
      ? [`group:${s.target}`]
      : nounOf(s.kind) === "permissions" || nounOf(s.kind) === "dataFilter"
        ? [`${nounOf(s.kind)}:${s.id}`]
        : peopleOf(s, person).map((p) => `person:${p}`);
  const unfinished = new Set(plan.steps.filter((s) => !succeeded.has(s.id)).flatMap(keysOf));
  const done: Step[] = [];
  for (const s of plan.steps) {
    if (!isMembersStep(s)) {
      if (!keysOf(s).some((k) => unfinished.has(k))) done.push(s);
      continue;
    }
    const members = s.members.filter((m) => !unfinished.has(`person:${m}`));
    if (members.length > 0) done.push({ ...s, members });
  }
  const revoked = revokedAccess(plan, succeeded);
  const { accessRevoked: _all, ...rest } = plan;
  return summarizePlan({ ...rest, ...(revoked?.length ? { accessRevoked: revoked } : {}), steps: done });
}

/** The leavers whose access the plan revokes and every step touching whose access succeeded. */
export function revokedAccess(plan: Plan, succeeded: ReadonlySet<string>): string[] | undefined {
  const endsWith =
    (id: string) =>
    (k: string): boolean =>
      k === `mapping:${id}` || k.endsWith(`/user/${id}`) || k.endsWith(`:user/${id}`);
  return plan.accessRevoked?.filter(
    (id) => !plan.steps.some((s) => !succeeded.has(s.id) && s.touches.some(endsWith(id))),
  );
}
