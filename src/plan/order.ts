/**
 * The plan as a DAG in a stable order: by phase (groups parents-first → credentials → mappings
 * → bulk membership → permission grants and removals → credential deletions → mapping deletions
 * → group deletions children-first), then target.
 * One sort at the end; no per-user sorting.
 */
import { compareStrings, sortedUnique, type PlanContext } from "./context.js";
import type { Step, StepKind } from "./types.js";

const PHASE: Record<StepKind, number> = {
  createGroup: 0,
  updateGroup: 0,
  createCredentials: 1,
  updateCredentials: 1,
  createMapping: 2,
  updateMapping: 2,
  // Bulk moves of existing mappings: after the mapping steps, before any deletion.
  addMembers: 2.5,
  removeMembers: 2.5,
  deleteCredentials: 3,
  deleteMapping: 4,
  deleteGroup: 5,
  // After the groups and people they name (their steps are also in dependsOn); a workspace's
  // removals after its grants, both setting absolute values.
  grantWorkspacePermissions: 2.6,
  revokeWorkspacePermissions: 2.7,
  grantOrganizationPermissions: 2.8,
  revokeOrganizationPermissions: 2.9,
  // Data filters: a new or narrower one before the access it guards (dependsOn says exactly
  // which), a removal or widening after the access it guarded is gone (docs/data-filters.md).
  createDataFilter: 1.9,
  updateDataFilter: 1.9,
  deleteDataFilter: 2.95,
  // A revoked leaver's own API tokens: once their access is gone (nothing else waits for them).
  deleteApiToken: 2.97,
};

/** Depth of each group in the hierarchy after the plan (roots 0); cycles are cut, not followed. */
function groupDepths(ctx: PlanContext): Map<string, number> {
  const parents = new Map<string, string[]>();
  for (const g of ctx.actual.groups) parents.set(g.id, g.parents);
  for (const s of ctx.steps.values())
    if (s.kind === "createGroup" || s.kind === "updateGroup") parents.set(s.target, s.after.parents);
  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  const of = (id: string): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (visiting.has(id)) return 0;
    visiting.add(id);
    let d = 0;
    for (const p of parents.get(id) ?? []) d = Math.max(d, of(p) + 1);
    visiting.delete(id);
    depth.set(id, d);
    return d;
  };
  for (const id of parents.keys()) of(id);
  return depth;
}

/**
 * With data filters, a step may wait for one of a later phase (a mapping for its groups' filters,
 * a user's filter for its mapping): each such step moves just after the latest step it waits
 * for, so every `dependsOn` still points at an earlier step. Only plans with filters pay for it.
 */
function phasesAfterDependencies(ctx: PlanContext): (s: Step) => number {
  const memo = new Map<string, number>();
  const of = (s: Step): number => {
    const known = memo.get(s.id);
    if (known !== undefined) return known;
    memo.set(s.id, PHASE[s.kind]);
    let phase = PHASE[s.kind];
    for (const d of s.dependsOn) {
      const dep = ctx.steps.get(d);
      if (dep) phase = Math.max(phase, of(dep) + 0.001);
    }
    memo.set(s.id, phase);
    return phase;
  };
  return of;
}

export function orderSteps(ctx: PlanContext): Step[] {
  const depths = groupDepths(ctx);
  let withFilters = false;
  for (const s of ctx.steps.values()) if (s.kind.endsWith("DataFilter")) withFilters = true;
  const phaseOf = withFilters ? phasesAfterDependencies(ctx) : (s: Step): number => PHASE[s.kind];
  // Decorate once, sort, undecorate: the comparator then does no Map look-ups.
  const decorated = [...ctx.steps.values()].map((s) => {
    if (s.dependsOn.length > 0) s.dependsOn = sortedUnique(s.dependsOn.filter((d) => ctx.steps.has(d)));
    const d = depths.get(s.target) ?? 0;
    const rank = s.kind === "createGroup" || s.kind === "updateGroup" ? d : s.kind === "deleteGroup" ? -d : 0;
    return { s, phase: phaseOf(s), rank };
  });
  decorated.sort(
    (a, b) =>
      a.phase - b.phase ||
      a.rank - b.rank ||
      compareStrings(a.s.target, b.s.target) ||
      compareStrings(a.s.id, b.s.id),
  );
  return decorated.map((x) => x.s);
}
