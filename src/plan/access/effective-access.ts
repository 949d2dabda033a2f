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
  type Assignee,
  type Workspace,
  type WorkspaceAssignment,
  type WorkspacePermission,
} from "../../permissions.js";
import type { AccessReason, EffectiveFilter } from "./review-types.js";

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

const assigneeText = (a: Assignee): string => (a.type === "user" ? "own grant" : `group ${a.id}`);

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

  /** The part every member of this group set shares: group reasons and group filters, by workspace. */
  const groupPart = new Map<string, Map<string, { reasons: AccessReason[]; filters: EffectiveFilter[] }>>();
  const groupShare = (
    groups: readonly string[],
  ): Map<string, { reasons: AccessReason[]; filters: EffectiveFilter[] }> => {
    const key = groups.join("\u0000");
    let part = groupPart.get(key);
    if (part) return part;
    part = new Map();
    const chains = [...chainsOf(groups)].sort(([a], [b]) => cmp(a, b));
    const at = (ws: string): { reasons: AccessReason[]; filters: EffectiveFilter[] } =>
      part!.get(ws) ?? part!.set(ws, { reasons: [], filters: [] }).get(ws)!;
    for (const [g, chain] of chains)
      for (const c of byAssignee.get(`userGroup/${g}`) ?? [])
        at(c.workspace).reasons.push(withChain(c.reason, chain));
    for (const [g, chain] of chains)
      for (const f of filtersByHolder.get(`userGroup/${g}`) ?? [])
        at(f.workspace).filters.push(effective(f, "group", chain));
    groupPart.set(key, part);
    return part;
  };

  return {
    pathOf,
    chainsOf,
    filterCount: (ws) => filtersOn.get(ws) ?? 0,
    accessOf(userId, groups) {
      const shared = groupShare(groups);
      const reasonsAt = new Map<string, AccessReason[]>();
      const filtersAt = new Map<string, EffectiveFilter[]>();
      const add = <T>(into: Map<string, T[]>, ws: string, items: readonly T[]): void => {
        if (items.length > 0) (into.get(ws) ?? into.set(ws, []).get(ws)!).push(...items);
      };
      for (const c of byAssignee.get(`user/${userId}`) ?? [])
        add(reasonsAt, c.workspace, [withChain(c.reason, [])]);
      for (const [ws, s] of shared) {
        add(reasonsAt, ws, s.reasons);
        add(filtersAt, ws, s.filters);
      }
      for (const f of filtersByHolder.get(`user/${userId}`) ?? [])
        add(filtersAt, f.workspace, [effective(f, "own", [])]);
      const out: RawAccess[] = [];
      for (const [ws, reasons] of reasonsAt) {
        const permissions = permissionSet(reasons.flatMap((r) => r.permissions));
        if (permissions.length === 0) continue;
        // Filters on this workspace and on every one above it narrow what is seen here.
        const filters: EffectiveFilter[] = [];
        for (const w of pathOf(ws))
          for (const f of filtersAt.get(w) ?? []) filters.push(w === ws ? f : { ...f, fromParent: true });
        out.push({
          workspace: ws,
          permissions,
          reasons: reasons.sort(byReason),
          filters: filters.sort(byFilter),
          workspaceFiltered: filteredAbove(ws),
        });
      }
      return out.sort((a, b) => cmp(a.workspace, b.workspace));
    },
  };
}

function withChain(r: AccessReason, chain: string[]): AccessReason {
  const via = chain.length > 1 ? `${chain.join(" -> ")}` : assigneeText(r.holder);
  const group = r.holder.type === "userGroup" ? (chain.length > 1 ? `group ${via}` : via) : via;
  const text =
    r.kind === "hierarchy"
      ? `${group}, hierarchy from ${r.workspaceChain.join(" > ")}`
      : r.holder.type === "user"
        ? "direct grant"
        : group;
  return {
    ...r,
    kind: r.kind === "hierarchy" ? "hierarchy" : r.holder.type === "user" ? "direct" : "group",
    groupChain: chain,
    text,
  };
}

function effective(f: ActualDataFilter, via: "own" | "group", chain: string[]): EffectiveFilter {
  return {
    id: f.id,
    ...(f.title !== undefined ? { title: f.title } : {}),
    via,
    holder: f.assignee,
    groupChain: chain,
    workspace: f.workspace,
    fromParent: false,
    maql: f.maql,
    managed: f.managed,
  };
}

const KIND_ORDER = { direct: 0, group: 1, hierarchy: 2 } as const;
const byReason = (a: AccessReason, b: AccessReason): number =>
  KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
  cmp(a.holder.type, b.holder.type) ||
  cmp(a.holder.id, b.holder.id) ||
  cmp(a.grantedOn, b.grantedOn);
const byFilter = (a: EffectiveFilter, b: EffectiveFilter): number =>
  cmp(a.workspace, b.workspace) ||
  cmp(a.holder.type, b.holder.type) ||
  cmp(a.holder.id, b.holder.id) ||
  cmp(a.id, b.id);
