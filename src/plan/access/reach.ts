/**
 * Who can reach a workspace, and what a data filter guards (docs/data-filters.md). Access follows
 * what the service does: an assignee's direct grant on a workspace, a hierarchy grant on a
 * workspace above it, and for a user any group it is in, with the groups above; for a group the
 * groups above it. A filter follows the same path down: a filter on a workspace applies there and
 * on every workspace below it, to its holder and (a group's) to every member of the group or of a
 * group below it, however that member reaches the workspace.
 *
 * "After" is the organization once the plan's planned steps are done (after-plan.ts: held-back
 * steps never run). Read from the actual grants and the planned permission steps. Where usersync
 * does not know (permissions not listed, a workspace outside `permissions.workspaces`) access is
 * taken to remain: a filter removed then is at worst counted as a widening.
 *
 * Grants over the workspace tree are grant-model.ts's, the model the access review reads too.
 */
import { assigneeKey, type Assignee } from "../../permissions.js";
import { mappingOf, type PlanContext } from "../context.js";
import { workspaceMatcher } from "../safety.js";
import { memberships, type Memberships } from "./after-plan.js";
import { grantIndex, groupClosure, workspaceTree, type KeyedGrant } from "./grant-model.js";

export interface Reach {
  /** Whether `a` can see `workspace` after the plan (true when it cannot be known). */
  after(a: Assignee, workspace: string): boolean;
  /** The groups a user is or will be in (and the groups above them), or the groups above a group. */
  groupsOf(a: Assignee): ReadonlySet<string>;
  /** The workspace and every workspace below it (a filter on it guards them all). */
  below(workspace: string): ReadonlySet<string>;
  /**
   * Whether a filter of `a` on `workspace` still guards someone's access after the plan: `a`'s own
   * on the workspace or one below it, and for a group its members' (of it or a group below it).
   */
  guardsAfter(a: Assignee, workspace: string): boolean;
  /** The users who are or will be in the group or a group below it, while the plan runs. */
  membersOf(group: string): ReadonlySet<string>;
  /** The groups that are or will be below the group (its members are its members). */
  groupsBelow(group: string): ReadonlySet<string>;
  /** What the plan changes in memberships (steps that take access away, groups after). */
  readonly memberships: Memberships;
}

/** The grants after the plan: the listed ones, then each planned grant and revoke step's `after`. */
function grantsAfter(ctx: PlanContext): KeyedGrant[] {
  const out: KeyedGrant[] = [];
  for (const a of ctx.actual.permissions?.assignments ?? [])
    out.push({
      key: assigneeKey(a.assignee),
      workspace: a.workspace,
      permissions: a.permissions,
      hierarchy: a.hierarchy,
    });
  // Grant steps come before revoke steps: a revoke's `after` is the last word when both run.
  for (const s of ctx.steps.values())
    if (
      (s.kind === "grantWorkspacePermissions" || s.kind === "revokeWorkspacePermissions") &&
      s.status === "planned"
    )
      for (const c of s.changes) out.push({ key: assigneeKey(c.assignee), workspace: s.target, ...c.after });
  return out;
}

export function makeReach(ctx: PlanContext): Reach {
  const perms = ctx.actual.permissions;
  const listed = workspaceMatcher(ctx.policy.permissions.workspaces);
  // The one model of grants over the workspace tree (grant-model.ts), on the grants after the plan.
  const tree = workspaceTree(perms?.workspaces ?? []);
  const grants = grantIndex(tree, grantsAfter(ctx));
  const direct = grants.reaches;
  const below = tree.below;
  const m = memberships(ctx);
  const groupParents = duringGroupParents(ctx);
  const userGroups = duringUserGroups(ctx, m);
  const cache = new Map<string, Set<string>>();
  const cached = (key: string, make: () => Set<string>): Set<string> =>
    cache.get(key) ?? cache.set(key, make()).get(key)!;
  const groupsOf = (a: Assignee): Set<string> =>
    cached(`during ${assigneeKey(a)}`, () => {
      const start = a.type === "user" ? userGroups(a.id) : (groupParents.get(a.id) ?? []);
      const set = groupClosure(start, (g) => groupParents.get(g) ?? []);
      if (a.type === "userGroup") set.delete(a.id);
      return set;
    });
  const groupsAfter = (a: Assignee): Set<string> | undefined => {
    const start = a.type === "user" ? m.userAfter(a.id) : m.parentsAfter(a.id);
    if (start === undefined) return undefined;
    return groupClosure(
      start.filter((g) => m.parentsAfter(g) !== undefined),
      (g) => (m.parentsAfter(g) ?? []).filter((p) => m.parentsAfter(p) !== undefined),
    );
  };
  const after = (a: Assignee, workspace: string): boolean => {
    if (!perms || !listed(workspace)) return true;
    const groups = groupsAfter(a);
    if (groups === undefined) return false;
    if (direct(assigneeKey(a), workspace)) return true;
    for (const g of groups) if (direct(`userGroup/${g}`, workspace)) return true;
    return false;
  };
  const index = lazyMembers(ctx, groupsOf);
  const reachesBelow = (a: Assignee, workspace: string): boolean =>
    [...below(workspace)].some((w) => after(a, w));
  return {
    groupsOf,
    below,
    after,
    memberships: m,
    membersOf: (g) => index().members.get(g) ?? new Set(),
    groupsBelow: (g) => index().groups.get(g) ?? new Set(),
    guardsAfter(a, workspace) {
      if (reachesBelow(a, workspace)) return true;
      if (a.type === "user") return false;
      for (const u of index().members.get(a.id) ?? [])
        if (reachesBelow({ type: "user", id: u }, workspace)) return true;
      return false;
    },
  };
}

/** Who is in each group (or a group below it), and which groups are below it: built once, when asked. */
function lazyMembers(
  ctx: PlanContext,
  groupsOf: (a: Assignee) => ReadonlySet<string>,
): () => { members: Map<string, Set<string>>; groups: Map<string, Set<string>> } {
  let built: { members: Map<string, Set<string>>; groups: Map<string, Set<string>> } | undefined;
  return () => {
    if (built) return built;
    const members = new Map<string, Set<string>>();
    const groups = new Map<string, Set<string>>();
    const ids = new Set([...ctx.actual.mappings.map((x) => x.id), ...ctx.desired.users.map((u) => u.id)]);
    for (const id of ids)
      for (const g of groupsOf({ type: "user", id }))
        (members.get(g) ?? members.set(g, new Set()).get(g)!).add(id);
    const all = new Set([...ctx.actual.groups.map((g) => g.id), ...ctx.desired.groups.map((g) => g.id)]);
    for (const id of all)
      for (const g of groupsOf({ type: "userGroup", id }))
        (groups.get(g) ?? groups.set(g, new Set()).get(g)!).add(id);
    built = { members, groups };
    return built;
  };
}

/** Each group's parents now and after the plan (both: it is a member of either while the plan runs). */
function duringGroupParents(ctx: PlanContext): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  for (const g of ctx.actual.groups) out.set(g.id, g.parents);
  for (const s of ctx.steps.values())
    if (s.kind === "createGroup" || s.kind === "updateGroup")
      out.set(s.target, [...new Set([...(out.get(s.target) ?? []), ...s.after.parents])]);
  return out;
}

/**
 * A user's groups now, after the plan, and the desired ones: while the plan runs it may be in any
 * of them, so all count when ordering (more waiting, never less).
 */
function duringUserGroups(ctx: PlanContext, m: Memberships): (id: string) => readonly string[] {
  // Built only when a plan has data filters: a run without them never pays for this Map.
  const desiredById = new Map(ctx.desired.users.map((u) => [u.id, u]));
  return (id) => {
    const d = desiredById.get(id);
    const have = mappingOf(ctx, id)?.groups ?? [];
    const wanted = d?.state === "present" ? (d.groups ?? []) : [];
    return [...new Set([...have, ...wanted, ...(m.userAfter(id) ?? [])])];
  };
}
