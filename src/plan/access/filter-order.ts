/**
 * The rule that no one holds access without their filter, as dependencies (docs/data-filters.md):
 *
 * - every step that gives access (a permission grant; a mapping created or updated into groups; a
 *   bulk `addMembers`; a group given parents) waits for the new or narrower filters of the
 *   assignees it gives access to: the user's own, each group's it joins and the groups above;
 * - a new user with a filter of their own is created without groups (the filter needs the user to
 *   exist) and joins them in a second step (`updateMapping`) once the filter is there;
 * - a removal or a loosening of a filter (a widening or not) waits for the steps of this plan that
 *   take away the access it guards.
 */
import { isNarrowing } from "../../data-filters.js";
import { assigneeKey, type Assignee } from "../../permissions.js";
import type { PlanContext } from "../context.js";
import { base, mappingKey } from "../steps.js";
import type { CreateMappingStep, DataFilterStep, Step } from "../types.js";
import type { Reach } from "./reach.js";

/** A filter step that makes or keeps a filter at least as narrow: access may wait for it. */
const guards = (s: DataFilterStep): boolean =>
  s.kind === "createDataFilter" ||
  (s.kind === "updateDataFilter" && isNarrowing(s.before.maql, s.after.maql));

const add = (s: Step, deps: readonly string[]): void => {
  for (const d of deps) if (d !== s.id && !s.dependsOn.includes(d)) s.dependsOn.push(d);
};

export function orderForFilters(ctx: PlanContext, steps: readonly DataFilterStep[], reach: Reach): void {
  const guard = new Map<string, string[]>();
  for (const s of steps)
    if (guards(s))
      (
        guard.get(assigneeKey(s.assignee)) ??
        guard.set(assigneeKey(s.assignee), []).get(assigneeKey(s.assignee))!
      ).push(s.id);
  if (guard.size > 0) waitForFilters(ctx, guard, reach);
  const loosening = steps.filter((s) => !guards(s));
  if (loosening.length > 0) waitForAccessGone(ctx, loosening, reach);
}

function waitForFilters(ctx: PlanContext, guard: ReadonlyMap<string, string[]>, reach: Reach): void {
  const of = (a: Assignee): readonly string[] => guard.get(assigneeKey(a)) ?? [];
  const group = (id: string): Assignee => ({ type: "userGroup", id });
  // A group's own filters and those of the groups above it: its members are members of those too.
  const groupNeed = (id: string): string[] => [
    ...of(group(id)),
    ...[...reach.groupsOf(group(id))].flatMap((p) => of(group(p))),
  ];
  // Each user's need: their own filters and every group's they are (or will be) in, with those
  // above; and, by group, the needs of its members (a grant to the group reaches them all).
  const need = new Map<string, string[]>();
  const usersIn = new Map<string, Set<string>>();
  const users = new Set([...ctx.actual.mappings.map((m) => m.id), ...ctx.desired.users.map((u) => u.id)]);
  for (const id of users) {
    const groups = reach.groupsOf({ type: "user", id });
    const ids = [...of({ type: "user", id }), ...[...groups].flatMap((g) => of(group(g)))];
    if (ids.length === 0) continue;
    need.set(id, ids);
    for (const g of groups) {
      const set = usersIn.get(g) ?? usersIn.set(g, new Set()).get(g)!;
      for (const x of ids) set.add(x);
    }
  }
  const needOf = (id: string): readonly string[] => need.get(id) ?? [];
  const members = (id: string): string[] => [...(usersIn.get(id) ?? [])];
  for (const s of [...ctx.steps.values()]) {
    switch (s.kind) {
      case "grantWorkspacePermissions":
        for (const c of s.changes)
          add(
            s,
            c.assignee.type === "user"
              ? needOf(c.assignee.id)
              : [...groupNeed(c.assignee.id), ...members(c.assignee.id)],
          );
        break;
      case "createMapping":
        if (s.after.groups.length === 0) break;
        if (of({ type: "user", id: s.target }).length > 0) splitCreate(ctx, s, needOf(s.target));
        else add(s, needOf(s.target));
        break;
      case "updateMapping":
        add(s, needOf(s.target));
        break;
      case "addMembers":
        add(s, groupNeed(s.target));
        for (const m of s.members) add(s, needOf(m));
        break;
      case "createGroup":
        add(s, s.after.parents.flatMap(groupNeed));
        break;
      case "updateGroup":
        // Its members join the new parents' access now (a new group has none yet: they wait when they join).
        add(s, [...s.after.parents.flatMap(groupNeed), ...members(s.target)]);
        break;
      default:
        break;
    }
  }
}

/**
 * A new user with a filter of their own: the mapping is created without groups, the filter made,
 * then the groups joined (`updateMapping:<id>`, waiting for both).
 */
function splitCreate(ctx: PlanContext, create: CreateMappingStep, deps: readonly string[]): void {
  const after = { ...create.after, groups: [...create.after.groups] };
  // `before` is the mapping as the create leaves it (its login id may still be a step reference).
  const before = { ...create.after, groups: [] };
  create.after = { ...create.after, groups: [] };
  const join = {
    ...base({
      kind: "updateMapping",
      target: create.target,
      reason: `user ${create.target} joins their groups once their data filters exist`,
      touches: [mappingKey(create.target)],
      dependsOn: [create.id, ...deps],
    }),
    before,
    after,
  } as Step;
  ctx.steps.set(join.id, join);
}

/**
 * Removals and loosenings (widenings included) after every planned step that may take away the
 * access they guard: the revokes on the workspace, below it or above it, and the moves of whoever the filter
 * applies to (the holder; for a group, the groups below it and their members): mapping updates and
 * deletions, `removeMembers`, group updates and deletions. A step held back is not waited for: it
 * never runs, and the widening count already took its access as remaining.
 */
function waitForAccessGone(ctx: PlanContext, loosening: readonly DataFilterStep[], reach: Reach): void {
  const revokes = new Map<string, string[]>();
  for (const s of ctx.steps.values())
    if (s.kind === "revokeWorkspacePermissions" && s.status === "planned")
      (revokes.get(s.target) ?? revokes.set(s.target, []).get(s.target)!).push(s.id);
  const m = reach.memberships;
  for (const s of loosening) {
    const a = s.assignee;
    // A revoke on the workspace or below it, or above it (a hierarchy grant there reaches down
    // to the filter's workspace): waiting for one that gave nothing here costs only order.
    const guarded = reach.below(s.workspace);
    const deps = [...revokes]
      .filter(([w]) => guarded.has(w) || reach.below(w).has(s.workspace))
      .flatMap(([, ids]) => ids);
    const groups = new Set(reach.groupsOf(a));
    if (a.type === "user") deps.push(...m.userRemovals(a.id));
    else {
      groups.add(a.id);
      for (const g of reach.groupsBelow(a.id)) groups.add(g);
      for (const u of reach.membersOf(a.id)) deps.push(...m.userRemovals(u));
    }
    for (const g of groups) deps.push(...m.groupRemovals(g));
    add(s, deps);
  }
}
