/**
 * The one model of who reaches which workspace through what (DESIGN section 12, docs/data-filters.md):
 * the workspace tree, the grants on it, and the groups above a group, with the service's rules. A
 * grant's `permissions` hold on its workspace, its `hierarchy` permissions on it and on every
 * workspace below it; a person holds their own grants and those of every group they are in and of
 * the groups above those. A data filter follows the same tree: on its workspace and every one below.
 *
 * Two readers, so they can never disagree: reach.ts (the planner's filter guard and ordering: does
 * anyone still reach a workspace once the plan's steps are done) and effective-access.ts (the
 * access review: what each person reaches and why, on the listed grants). `reaches` is the yes/no
 * of `contributions`: a key reaches a workspace exactly when one of its contributions lands there.
 *
 * Cost: the planner asks `reaches` many times and never `contributions`; the grants by assignee
 * and the spread of hierarchy grants are built only when first asked, paths once per workspace.
 */
import {
  compareIds as cmp,
  permissionSet,
  type WorkspaceGrant,
  type WorkspacePermission,
} from "../../permissions.js";

export interface WorkspaceTree {
  /** From the root down to the workspace (a cycle in the listing is cut where it closes). */
  pathOf(workspace: string): readonly string[];
  /** The workspace and every workspace below it (a hierarchy grant or a filter on it covers them all). */
  below(workspace: string): ReadonlySet<string>;
  /** The same, each with the chain from `workspace` down to it, depth first, children sorted. */
  belowChains(workspace: string): ReadonlyArray<readonly [string, string[]]>;
}

export function workspaceTree(
  workspaces: readonly { id: string; parent?: string | undefined }[],
): WorkspaceTree {
  const parentOf = new Map(workspaces.map((w) => [w.id, w.parent] as const));
  const children = new Map<string, string[]>();
  for (const w of workspaces)
    if (w.parent !== undefined)
      (children.get(w.parent) ?? children.set(w.parent, []).get(w.parent)!).push(w.id);
  for (const list of children.values()) list.sort(cmp);
  const paths = new Map<string, string[]>();
  const belowSets = new Map<string, Set<string>>();
  const chains = new Map<string, Array<[string, string[]]>>();
  const belowChains = (ws: string): Array<[string, string[]]> => {
    let out = chains.get(ws);
    if (out) return out;
    out = [];
    const seen = new Set<string>();
    const walk = (at: string, chain: string[]): void => {
      if (seen.has(at)) return;
      seen.add(at);
      out!.push([at, chain]);
      for (const c of children.get(at) ?? []) walk(c, [...chain, c]);
    };
    walk(ws, [ws]);
    chains.set(ws, out);
    return out;
  };
  return {
    pathOf(ws) {
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
    },
    below(ws) {
      let s = belowSets.get(ws);
      if (!s) {
        s = new Set(belowChains(ws).map(([w]) => w));
        belowSets.set(ws, s);
      }
      return s;
    },
    belowChains,
  };
}

/** One grant: `key` is `assigneeKey` (`user/<id>`, `userGroup/<id>`). */
export interface KeyedGrant extends WorkspaceGrant {
  key: string;
  workspace: string;
}

/** What one grant gives on one workspace. */
export interface Contribution {
  workspace: string;
  /** `here`: the grant is on this workspace; `hierarchy`: on `grantedOn` above it. */
  kind: "here" | "hierarchy";
  grantedOn: string;
  /** From `grantedOn` down to `workspace`, both included. */
  workspaceChain: string[];
  permissions: WorkspacePermission[];
  /** For `here`: the grant's hierarchy permissions reach this many workspaces below too. */
  below?: { permissions: WorkspacePermission[]; workspaces: number };
}

export interface GrantIndex {
  /** Whether `key`'s own grants reach `workspace`: a grant on it, or a hierarchy grant above it. */
  reaches(key: string, workspace: string): boolean;
  /** What `key`'s grants give, workspace by workspace (hierarchy spread down the tree). */
  contributions(key: string): readonly Contribution[];
}

/** The grants, by workspace and holder (a later grant of the same pair replaces an earlier one). */
export function grantIndex(tree: WorkspaceTree, grants: Iterable<KeyedGrant>): GrantIndex {
  const on = new Map<string, KeyedGrant>();
  for (const g of grants) on.set(`${g.workspace}|${g.key}`, g);
  let byKey: Map<string, KeyedGrant[]> | undefined;
  const spread = new Map<string, Contribution[]>();
  const none: Contribution[] = [];
  return {
    reaches(key, ws) {
      const path = tree.pathOf(ws);
      for (let i = path.length - 1; i >= 0; i--) {
        const g = on.get(`${path[i]}|${key}`);
        if (g === undefined) continue;
        if (g.hierarchy.length > 0 || (i === path.length - 1 && g.permissions.length > 0)) return true;
      }
      return false;
    },
    contributions(key) {
      if (!byKey) {
        byKey = new Map();
        for (const g of on.values()) (byKey.get(g.key) ?? byKey.set(g.key, []).get(g.key)!).push(g);
      }
      let out = spread.get(key);
      if (out) return out;
      const own = byKey.get(key);
      if (!own) return none;
      out = [];
      for (const g of own) {
        const here = permissionSet([...g.permissions, ...g.hierarchy]);
        const below = g.hierarchy.length > 0 ? tree.belowChains(g.workspace).slice(1) : [];
        if (here.length > 0)
          out.push({
            workspace: g.workspace,
            kind: "here",
            grantedOn: g.workspace,
            workspaceChain: [g.workspace],
            permissions: here,
            ...(below.length > 0 ? { below: { permissions: g.hierarchy, workspaces: below.length } } : {}),
          });
        for (const [ws, chain] of below)
          out.push({
            workspace: ws,
            kind: "hierarchy",
            grantedOn: g.workspace,
            workspaceChain: chain,
            permissions: g.hierarchy,
          });
      }
      spread.set(key, out);
      return out;
    },
  };
}

/** Every group reached from `start` through parents, `start` included, each once. */
export function groupClosure(
  start: Iterable<string>,
  parents: (group: string) => Iterable<string>,
): Set<string> {
  const out = new Set<string>();
  const walk = (id: string): void => {
    if (out.has(id)) return;
    out.add(id);
    for (const n of parents(id)) walk(n);
  };
  for (const s of start) walk(s);
  return out;
}

/**
 * The same groups, each with the chain that reaches it first (breadth first: the shortest),
 * `[a group of start, ..., it]`.
 */
export function groupChains(
  start: readonly string[],
  parents: (group: string) => readonly string[],
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let frontier: Array<[string, string[]]> = start.map((g) => [g, [g]]);
  while (frontier.length > 0) {
    const next: Array<[string, string[]]> = [];
    for (const [g, chain] of frontier) {
      if (out.has(g)) continue;
      out.set(g, chain);
      for (const p of parents(g)) if (!out.has(p)) next.push([p, [...chain, p]]);
    }
    frontier = next;
  }
  return out;
}
