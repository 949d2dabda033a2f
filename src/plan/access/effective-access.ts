/**
 * Effective access with its reasons, for the access review (DESIGN section 12): who reaches which
 * workspace, with which permissions, through what (their own grant, a group and its parent chain,
 * a grant with `hierarchy` permissions on a workspace above), and which data filters narrow it
 * (their own, their groups', those of the workspaces above). The service's rules, as reach.ts
 * applies them to the plan: `permissions` hold on the workspace, `hierarchy` on it and on every
 * workspace below it; a group passes its grants and filters to the members of every group below it.
 *
 * The grants, the workspace tree and the group chains are grant-model.ts's, the model the
 * planner's filter guard reads too (reach.ts): what the review reports is what the guard assumes.
 *
 * Cost: everything is computed once per group and once per distinct set of direct groups (people
 * share a handful of sets), so 10,000 people cost about as much as their groups (bench/review.mjs).
 */
import type { ActualDataFilter } from "../../data-filters.js";
import {
  assigneeKey,
  compareIds as cmp,
  permissionSet,
  type Workspace,
  type WorkspaceAssignment,
  type WorkspacePermission,
} from "../../permissions.js";
import type { AccessReason, EffectiveFilter } from "./reach-types.js";
import { byFilter, byReason, effective, withChain } from "./access-reasons.js";
import { grantIndex, groupChains, workspaceTree } from "./grant-model.js";

export interface AccessModelInput {
  workspaces: readonly Workspace[];
  assignments: readonly WorkspaceAssignment[];
  /** Each group's parents. */
  groupParents: ReadonlyMap<string, readonly string[]>;
  filters: readonly ActualDataFilter[];
}

/** One person's reach on one workspace, before the review adds names and desired-state flags. */
export interface RawAccess {
  workspace: string;
  permissions: WorkspacePermission[];
  reasons: AccessReason[];
  filters: EffectiveFilter[];
  /** The workspace or one above it has filters (anyone's). */
  workspaceFiltered: boolean;
}

export interface AccessModel {
  /** From the root down to the workspace (a cycle in the listing is cut where it closes). */
  pathOf(workspace: string): readonly string[];
  /**
   * Groups reached from `groups` through parents, each with the chain that reaches it first
   * (breadth first: the shortest), `[direct group, ..., it]`.
   */
  chainsOf(groups: readonly string[]): ReadonlyMap<string, string[]>;
  /** Everything a user with these direct groups reaches, sorted by workspace. */
  accessOf(userId: string, groups: readonly string[]): RawAccess[];
  /** Filters defined on each workspace. */
  filterCount(workspace: string): number;
  /**
   * The filters that narrow a person on a workspace whatever reaches it (organization MANAGE
   * reaches every workspace, R9; filters apply to everyone they name, R14), and whether the
   * workspace or one above it has filters at all.
   */
  filtersAt(
    userId: string,
    groups: readonly string[],
    workspace: string,
  ): { filters: EffectiveFilter[]; filtered: boolean };
}

interface Contribution {
  workspace: string;
  reason: AccessReason;
}

// eslint-disable-next-line max-lines-per-function -- one model: its caches (paths, chains, group-set rows) are shared by the questions it answers
export function makeAccessModel(input: AccessModelInput): AccessModel {
  const tree = workspaceTree(input.workspaces);
  const pathOf = tree.pathOf;
  const grants = grantIndex(
    tree,
    input.assignments.map((a) => ({
      key: assigneeKey(a.assignee),
      workspace: a.workspace,
      permissions: a.permissions,
      hierarchy: a.hierarchy,
    })),
  );
  const holders = new Map(input.assignments.map((a) => [assigneeKey(a.assignee), a.assignee] as const));
  /** What each assignee's grants give, workspace by workspace, as reasons (chain and text added per person). */
  const byAssignee = new Map<string, Contribution[]>();
  const contributionsOf = (key: string): Contribution[] => {
    let list = byAssignee.get(key);
    if (list) return list;
    const holder = holders.get(key);
    list = [];
    if (holder)
      for (const c of grants.contributions(key))
        list.push({
          workspace: c.workspace,
          reason: {
            kind: c.kind === "hierarchy" ? "hierarchy" : holder.type === "user" ? "direct" : "group",
            holder,
            groupChain: [],
            grantedOn: c.grantedOn,
            workspaceChain: c.workspaceChain,
            permissions: c.permissions,
            ...(c.below !== undefined ? { below: c.below } : {}),
            text: "",
          },
        });
    byAssignee.set(key, list);
    return list;
  };

  const filtersByHolder = new Map<string, ActualDataFilter[]>();
  const filtersOn = new Map<string, number>();
  for (const f of input.filters) {
    const key = `${f.assignee.type}/${f.assignee.id}`;
    (filtersByHolder.get(key) ?? filtersByHolder.set(key, []).get(key)!).push(f);
    filtersOn.set(f.workspace, (filtersOn.get(f.workspace) ?? 0) + 1);
  }
  const filteredAbove = (ws: string): boolean => pathOf(ws).some((w) => (filtersOn.get(w) ?? 0) > 0);

  const chainsCache = new Map<string, Map<string, string[]>>();
  const chainsOf = (groups: readonly string[]): Map<string, string[]> => {
    const key = groups.join("\u0000");
    let out = chainsCache.get(key);
    if (out) return out;
    out = groupChains(groups, (g) => input.groupParents.get(g) ?? []);
    chainsCache.set(key, out);
    return out;
  };

  /**
   * The rows every member of this group set shares, finished (permissions, sorted reasons,
   * filters along the workspace path): a person with no grant or filter of their own gets these
   * very objects, so 10,000 people cost about as much as their few distinct group sets.
   */
  const groupRows = new Map<string, Map<string, RawAccess>>();
  const groupFiltersAt = new Map<string, Map<string, EffectiveFilter[]>>();
  const groupFilters = (groups: readonly string[], key: string): Map<string, EffectiveFilter[]> => {
    let at = groupFiltersAt.get(key);
    if (at) return at;
    at = new Map();
    for (const [g, chain] of [...chainsOf(groups)].sort(([a], [b]) => cmp(a, b)))
      for (const f of filtersByHolder.get(`userGroup/${g}`) ?? []) {
        const list = at.get(f.workspace) ?? at.set(f.workspace, []).get(f.workspace)!;
        list.push(effective(f, "group", chain));
      }
    groupFiltersAt.set(key, at);
    return at;
  };
  // A filter on a parent narrows every workspace below it: one `fromParent` copy each, not one a row.
  const fromParent = new WeakMap<EffectiveFilter, EffectiveFilter>();
  const parentCopy = (f: EffectiveFilter): EffectiveFilter => {
    let copy = fromParent.get(f);
    if (!copy) fromParent.set(f, (copy = { ...f, fromParent: true }));
    return copy;
  };
  const alongPath = (
    ws: string,
    byWs: ReadonlyMap<string, readonly EffectiveFilter[]>,
    into: EffectiveFilter[],
  ): void => {
    if (byWs.size === 0) return;
    for (const w of pathOf(ws)) for (const f of byWs.get(w) ?? []) into.push(w === ws ? f : parentCopy(f));
  };
  const sharedRows = (groups: readonly string[]): Map<string, RawAccess> => {
    const key = groups.join("\u0000");
    let rows = groupRows.get(key);
    if (rows) return rows;
    const reasonsAt = new Map<string, AccessReason[]>();
    for (const [g, chain] of [...chainsOf(groups)].sort(([a], [b]) => cmp(a, b)))
      for (const c of contributionsOf(`userGroup/${g}`)) {
        const list = reasonsAt.get(c.workspace) ?? reasonsAt.set(c.workspace, []).get(c.workspace)!;
        list.push(withChain(c.reason, chain));
      }
    const filters = groupFilters(groups, key);
    rows = new Map();
    for (const [ws, reasons] of reasonsAt) {
      const permissions = permissionSet(reasons.flatMap((r) => r.permissions));
      if (permissions.length === 0) continue;
      const f: EffectiveFilter[] = [];
      alongPath(ws, filters, f);
      rows.set(ws, {
        workspace: ws,
        permissions,
        reasons: reasons.sort(byReason),
        filters: f.sort(byFilter),
        workspaceFiltered: filteredAbove(ws),
      });
    }
    groupRows.set(key, rows);
    return rows;
  };

  return {
    pathOf,
    chainsOf,
    filterCount: (ws) => filtersOn.get(ws) ?? 0,
    filtersAt(userId, groups, ws) {
      const own = new Map<string, EffectiveFilter[]>();
      for (const f of filtersByHolder.get(`user/${userId}`) ?? [])
        (own.get(f.workspace) ?? own.set(f.workspace, []).get(f.workspace)!).push(effective(f, "own", []));
      const filters: EffectiveFilter[] = [];
      alongPath(ws, own, filters);
      alongPath(ws, groupFilters(groups, groups.join("\u0000")), filters);
      return { filters: filters.sort(byFilter), filtered: filteredAbove(ws) };
    },
    accessOf(userId, groups) {
      const shared = sharedRows(groups);
      const ownGrants = contributionsOf(`user/${userId}`);
      const ownFiltersList = filtersByHolder.get(`user/${userId}`) ?? [];
      if (ownGrants.length === 0 && ownFiltersList.length === 0)
        return [...shared.values()].sort((a, b) => cmp(a.workspace, b.workspace));
      const ownReasons = new Map<string, AccessReason[]>();
      for (const c of ownGrants) {
        const list = ownReasons.get(c.workspace) ?? ownReasons.set(c.workspace, []).get(c.workspace)!;
        list.push(withChain(c.reason, []));
      }
      const ownFilters = new Map<string, EffectiveFilter[]>();
      for (const f of ownFiltersList) {
        const list = ownFilters.get(f.workspace) ?? ownFilters.set(f.workspace, []).get(f.workspace)!;
        list.push(effective(f, "own", []));
      }
      const key = groups.join("\u0000");
      const out: RawAccess[] = [];
      for (const ws of new Set([...shared.keys(), ...ownReasons.keys()])) {
        const base = shared.get(ws);
        const own = ownReasons.get(ws);
        const mine: EffectiveFilter[] = [];
        alongPath(ws, ownFilters, mine);
        if (base && !own && mine.length === 0) {
          out.push(base);
          continue;
        }
        // Only the own filters differ: the shared reasons list is kept (and flagged, hashed once).
        const reasons = own ? [...own, ...(base?.reasons ?? [])].sort(byReason) : base!.reasons;
        const permissions = own ? permissionSet(reasons.flatMap((r) => r.permissions)) : base!.permissions;
        if (permissions.length === 0) continue;
        const filters = [...mine];
        if (base) filters.push(...base.filters);
        else alongPath(ws, groupFilters(groups, key), filters);
        out.push({
          workspace: ws,
          permissions,
          reasons,
          filters: filters.sort(byFilter),
          workspaceFiltered: filteredAbove(ws),
        });
      }
      return out.sort((a, b) => cmp(a.workspace, b.workspace));
    },
  };
}
