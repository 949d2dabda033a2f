/**
 * A person's own grants in full mode (issue 39, docs/permissions.md "Hand-made direct grants").
 * Full mode makes the file the whole truth for what it manages: with workspace permissions
 * managed, a user the file lists without `workspaces` reaches workspaces through its groups only,
 * so a direct grant it holds on an in-scope workspace was made by hand and is drift. Such a user
 * is read as `workspaces: []` (managed, holds nothing of its own): the grant is planned away like
 * any other (a revoke step, counted by `permissions.maxRemovals`), and only after the same checks
 * as every holder (in scope, not protected, mapped). Incremental mode leaves it alone.
 */
import type { DesiredState, DesiredUser } from "../desired/types.js";
import { isEmptyGrant } from "../permissions.js";
import type { PlanContext } from "./context.js";
import type { Policy } from "./policy.js";
import { workspaceMatcher } from "./safety.js";

/** Whether the run manages workspace permissions: `permissions.workspaces` set and an entry carrying some. */
export function managesWorkspaces(desired: DesiredState, policy: Policy): boolean {
  if (policy.permissions.workspaces.length === 0) return false;
  if (desired.groups.some((g) => g.workspaces !== undefined)) return true;
  return desired.users.some((u) => u.state === "present" && u.workspaces !== undefined);
}

/**
 * Whether a run must read every user's grants (the listing's `users: "all"`) rather than only
 * those of users whose entry lists workspaces: in full mode, when the file lists a person without
 * `workspaces`, a hand-made grant of theirs is only seen that way.
 */
export function listsEveryUsersGrants(desired: DesiredState, policy: Policy): boolean {
  return (
    policy.mode === "full" &&
    managesWorkspaces(desired, policy) &&
    desired.users.some((u) => u.state === "present" && u.workspaces === undefined)
  );
}

/**
 * How the permission planner reads a desired user: as it is, or, in full mode, with
 * `workspaces: []` when it lists none and holds a direct grant on an in-scope workspace. Users
 * without such a grant are left as they are, so nobody else becomes a holder (nor gets a notice).
 */
export function withHandMadeGrants(ctx: PlanContext): (u: DesiredUser) => DesiredUser {
  const same = (u: DesiredUser): DesiredUser => u;
  const perms = ctx.actual.permissions;
  if (ctx.policy.mode !== "full" || perms === undefined) return same;
  if (!managesWorkspaces(ctx.desired, ctx.policy)) return same;
  const inScope = workspaceMatcher(ctx.policy.permissions.workspaces);
  const holding = new Set<string>();
  for (const a of perms.assignments)
    if (a.assignee.type === "user" && inScope(a.workspace) && !isEmptyGrant(a)) holding.add(a.assignee.id);
  if (holding.size === 0) return same;
  return (u) =>
    u.state === "present" && u.workspaces === undefined && holding.has(u.id) ? { ...u, workspaces: [] } : u;
}
