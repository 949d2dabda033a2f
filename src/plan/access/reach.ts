/**
 * Who can reach a workspace once the plan is done: an assignee's direct grant on it, a hierarchy
 * grant on a workspace above it, or (for a user) any group it will be in, and (for a group) any
 * group above it, with the same rules. Read from the actual grants and the planned permission
 * steps. Where usersync does not know (permissions not listed, a workspace outside
 * `permissions.workspaces`) access is taken to remain: a filter removed then is a widening.
 */
import { assigneeKey, isEmptyGrant, type Assignee, type WorkspaceGrant } from "../../permissions.js";
import { mappingOf, type PlanContext } from "../context.js";
import { workspaceMatcher } from "../safety.js";

export interface Reach {
  /** Whether `a` can see `workspace` after the plan (true when it cannot be known). */
  after(a: Assignee, workspace: string): boolean;
  /** The groups a user will be in (and the groups above them), or the groups above a group. */
  groupsOf(a: Assignee): ReadonlySet<string>;
}

export function makeReach(ctx: PlanContext): Reach {
  const perms = ctx.actual.permissions;
  const listed = workspaceMatcher(ctx.policy.permissions.workspaces);
  const grants = new Map<string, WorkspaceGrant>();
  for (const a of perms?.assignments ?? []) grants.set(`${a.workspace}|${assigneeKey(a.assignee)}`, a);
  for (const s of ctx.steps.values())
    if (
      (s.kind === "grantWorkspacePermissions" || s.kind === "revokeWorkspacePermissions") &&
      s.status === "planned"
    )
      for (const c of s.changes) grants.set(`${s.target}|${assigneeKey(c.assignee)}`, c.after);
  const parentOf = new Map((perms?.workspaces ?? []).map((w) => [w.id, w.parent] as const));
  const groupParents = finalGroupParents(ctx);
  const userGroups = finalUserGroups(ctx);
  const closure = new Map<string, Set<string>>();
  const above = (groups: Iterable<string>): Set<string> => {
    const out = new Set<string>();
    const walk = (g: string): void => {
      if (out.has(g)) return;
      out.add(g);
      for (const p of groupParents.get(g) ?? []) walk(p);
    };
    for (const g of groups) walk(g);
    return out;
  };
  const groupsOf = (a: Assignee): Set<string> => {
    const key = assigneeKey(a);
    let set = closure.get(key);
    if (!set) {
      set = a.type === "user" ? above(userGroups(a.id)) : above(groupParents.get(a.id) ?? []);
      if (a.type === "userGroup") set.delete(a.id);
      closure.set(key, set);
    }
    return set;
  };
  const direct = (key: string, workspace: string): boolean => {
    const own = grants.get(`${workspace}|${key}`);
    if (own && own.permissions.length > 0) return true;
    const seen = new Set<string>();
    for (let at: string | undefined = workspace; at !== undefined && !seen.has(at); at = parentOf.get(at)) {
      seen.add(at);
      const g = grants.get(`${at}|${key}`);
      if (g && !isEmptyGrant(g) && g.hierarchy.length > 0) return true;
    }
    return false;
  };
  return {
    groupsOf,
    after(a, workspace) {
      if (!perms || !listed(workspace)) return true;
      if (direct(assigneeKey(a), workspace)) return true;
      for (const g of groupsOf(a)) if (direct(`userGroup/${g}`, workspace)) return true;
      return false;
    },
  };
}

/** Each group's parents now and after the plan (both: it is a member of either while the plan runs). */
function finalGroupParents(ctx: PlanContext): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  for (const g of ctx.actual.groups) out.set(g.id, g.parents);
  for (const s of ctx.steps.values())
    if (s.kind === "createGroup" || s.kind === "updateGroup")
      out.set(s.target, [...new Set([...(out.get(s.target) ?? []), ...s.after.parents])]);
  return out;
}

/**
 * A user's groups now and after the plan (the desired ones): while the plan runs it may be in
 * either, so both count. Read from the desired state rather than the steps, so bulk moves and
 * mapping updates agree. (Access after the plan is then overstated, never understated: a filter
 * removal is at worst counted as a widening.)
 */
function finalUserGroups(ctx: PlanContext): (id: string) => readonly string[] {
  // Built only when a plan has data filters: a run without them never pays for this Map.
  const desiredById = new Map(ctx.desired.users.map((u) => [u.id, u]));
  return (id) => {
    const d = desiredById.get(id);
    const have = mappingOf(ctx, id)?.groups ?? [];
    if (d?.state !== "present" || d.groups === undefined) return have;
    return [...new Set([...have, ...d.groups])];
  };
}
