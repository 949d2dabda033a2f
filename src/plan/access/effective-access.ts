/**
 * Effective access with its reasons, for the access review (DESIGN section 12): who reaches which
 * workspace, with which permissions, through what (their own grant, a group and its parent chain,
 * a grant with `hierarchy` permissions on a workspace above), and which data filters narrow it
 * (their own, their groups', those of the workspaces above). The service's rules, as reach.ts
 * applies them to the plan: `permissions` hold on the workspace, `hierarchy` on it and on every
 * workspace below it; a group passes its grants and filters to the members of every group below it.
 *
 * TODO merge with reach.ts: reach.ts answers "does anyone still reach this workspace after the
 * plan" for the filter guard; this answers "why" for the review, on the listed state. One model
 * should serve both (DESIGN section 12); duplicated here while issue 37 reshapes reach.ts.
 *
 * Cost: everything is computed once per group and once per distinct set of direct groups (people
 * share a handful of sets), so 10,000 people cost about as much as their groups (bench/review.mjs).
 */
import type { ActualDataFilter } from "../../data-filters.js";
import {
  compareIds as cmp,
  permissionSet,
  type Workspace,
  type WorkspaceAssignment,
  type WorkspacePermission,
} from "../../permissions.js";
import type { AccessReason, EffectiveFilter } from "./review-types.js";
import { byFilter, byReason, effective, withChain } from "./access-reasons.js";

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
  pathOf(workspace: string): string[];
  /**
   * Groups reached from `groups` through parents, each with the chain that reaches it first
   * (breadth first: the shortest), `[direct group, ..., it]`.
   */
  chainsOf(groups: readonly string[]): ReadonlyMap<string, string[]>;
  /** Everything a user with these direct groups reaches, sorted by workspace. */
  accessOf(userId: string, groups: readonly string[]): RawAccess[];
  /** Filters defined on each workspace. */
  filterCount(workspace: string): number;
}

interface Contribution {
  workspace: string;
  reason: AccessReason;
}

// eslint-disable-next-line max-lines-per-function -- one model: its caches (paths, chains, group-set rows) are shared by the questions it answers
export function makeAccessModel(input: AccessModelInput): AccessModel {
  const parentOf = new Map(input.workspaces.map((w) => [w.id, w.parent] as const));
  const children = new Map<string, string[]>();
  for (const w of input.workspaces)
    if (w.parent !== undefined)
      (children.get(w.parent) ?? children.set(w.parent, []).get(w.parent)!).push(w.id);
  for (const list of children.values()) list.sort(cmp);

  const paths = new Map<string, string[]>();
  const pathOf = (ws: string): string[] => {
    let p = paths.get(ws);
    if (p) return p;
    const up: string[] = [];
    const seen = new Set<string>();
    for (let at: string | undefined = ws; at !== undefined && !seen.has(at); at = parentOf.get(at)) {
      seen.add(at);
      up.push(at);
    }
    p = up.reverse();
    paths.set(ws, p);
    return p;
  };
  /** `ws` and every workspace below it, each with the chain from `ws` down to it. */
  const below = (ws: string): Array<[string, string[]]> => {
    const out: Array<[string, string[]]> = [];
    const seen = new Set<string>();
    const walk = (at: string, chain: string[]): void => {
      if (seen.has(at)) return;
      seen.add(at);
      out.push([at, chain]);
      for (const c of children.get(at) ?? []) walk(c, [...chain, c]);
    };
    walk(ws, [ws]);
    return out;
  };

  // What each assignee's grants give, workspace by workspace (hierarchy spread below).
  const byAssignee = new Map<string, Contribution[]>();
  for (const a of input.assignments) {
    const key = `${a.assignee.type}/${a.assignee.id}`;
    const list = byAssignee.get(key) ?? byAssignee.set(key, []).get(key)!;
    const kind = a.assignee.type === "user" ? "direct" : "group";
    const here = permissionSet([...a.permissions, ...a.hierarchy]);
    if (here.length > 0)
      list.push({
        workspace: a.workspace,
        reason: {
          kind,
          holder: a.assignee,
          groupChain: [],
          grantedOn: a.workspace,
          workspaceChain: [a.workspace],
          permissions: here,
          text: "",
        },
      });
    if (a.hierarchy.length === 0) continue;
    for (const [ws, chain] of below(a.workspace).slice(1))
      list.push({
        workspace: ws,
        reason: {
          kind: "hierarchy",
          holder: a.assignee,
          groupChain: [],
          grantedOn: a.workspace,
          workspaceChain: chain,
          permissions: a.hierarchy,
          text: "",
        },
      });
  }

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
    out = new Map();
    let frontier: Array<[string, string[]]> = groups.map((g) => [g, [g]]);
    while (frontier.length > 0) {
      const next: Array<[string, string[]]> = [];
      for (const [g, chain] of frontier) {
        if (out.has(g)) continue;
        out.set(g, chain);
        for (const p of input.groupParents.get(g) ?? []) if (!out.has(p)) next.push([p, [...chain, p]]);
      }
      frontier = next;
    }
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
  const alongPath = (
    ws: string,
    byWs: ReadonlyMap<string, readonly EffectiveFilter[]>,
    into: EffectiveFilter[],
  ): void => {
    if (byWs.size === 0) return;
    for (const w of pathOf(ws))
      for (const f of byWs.get(w) ?? []) into.push(w === ws ? f : { ...f, fromParent: true });
  };
  const sharedRows = (groups: readonly string[]): Map<string, RawAccess> => {
    const key = groups.join("\u0000");
    let rows = groupRows.get(key);
    if (rows) return rows;
    const reasonsAt = new Map<string, AccessReason[]>();
    for (const [g, chain] of [...chainsOf(groups)].sort(([a], [b]) => cmp(a, b)))
      for (const c of byAssignee.get(`userGroup/${g}`) ?? []) {
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
    accessOf(userId, groups) {
      const shared = sharedRows(groups);
      const ownGrants = byAssignee.get(`user/${userId}`) ?? [];
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
