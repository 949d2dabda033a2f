/**
 * Workspace and organization permissions (docs/permissions.md). Only users and groups whose
 * desired state carries `workspaces` or `organization` are managed (and only when in scope and
 * not protected); only workspaces in `permissions.workspaces` are changed. Per workspace, the
 * grants that differ become one grant step (what is added) and one revoke step (what is taken
 * away; a mixed change is split, additions first), so removals can be held back alone, over
 * `permissions.maxRemovals`. Incremental mode changes the workspaces a user or group lists; full
 * mode also empties the in-scope workspaces it no longer lists.
 */
import type { DesiredAccess } from "../desired/types.js";
import {
  EMPTY_GRANT,
  assigneeKey,
  grantOf,
  isEmptyGrant,
  minusGrant,
  minusSet,
  permissionSet,
  sameGrant,
  sameSet,
  unionGrant,
  type Assignee,
  type OrganizationPermission,
  type WorkspaceGrant,
} from "../permissions.js";
import type { PlanContext } from "./context.js";
import { orgPermissionKey, permissionKey } from "./fingerprint.js";
import { guardLimit } from "./guard.js";
import { groupRefusal, mappingCreatedBy, userRefusal } from "./access/holders.js";
import { managesWorkspaces, withHandMadeGrants } from "./hand-made-grants.js";
import { managesOrganization } from "./access/leaver-access.js";
import { keptByMode } from "./kept-grants.js";
import { workspaceMatcher } from "./safety.js";
import { base, groupKey, mappingKey, notice, stepId } from "./steps.js";
import type { OrganizationChange, PermissionChange, Plan, Step, StepKind } from "./types.js";

/** A user or group whose permissions this plan manages, with the step that creates it, if any. */
interface Holder extends DesiredAccess {
  assignee: Assignee;
  createdBy: string | undefined;
  /** A leaver whose access is revoked: every managed grant goes, in either mode. */
  leaver?: true;
}

const hasAccess = (r: DesiredAccess): boolean => r.workspaces !== undefined || r.organization !== undefined;

/**
 * Whether this plan manages any permission: workspace permissions in the desired state with
 * `permissions.workspaces` set (unset, they are left alone: permission-checks.ts warns), or
 * organization permissions. Only then are they listed and planned.
 */
export function managesPermissions(ctx: Pick<PlanContext, "desired" | "policy">): boolean {
  const scoped = ctx.policy.permissions.workspaces.length > 0;
  const manages = (r: DesiredAccess): boolean =>
    r.organization !== undefined || (scoped && r.workspaces !== undefined);
  // A loop, not copies of the lists: every run without permissions passes here once per person.
  for (const g of ctx.desired.groups) if (manages(g)) return true;
  for (const u of ctx.desired.users) if (u.state === "present" && manages(u)) return true;
  return false;
}

function groupHolders(ctx: PlanContext): Holder[] {
  const out: Holder[] = [];
  for (const g of ctx.desired.groups) {
    if (!hasAccess(g)) continue;
    const target = groupKey(g.id);
    const createdBy = ctx.createdGroups.get(g.id);
    const why = groupRefusal(ctx, g.id, createdBy);
    if (why !== undefined) {
      refuse(ctx, target, why);
      continue;
    }
    out.push({ ...pick(g), assignee: { type: "userGroup", id: g.id }, createdBy });
  }
  return out;
}

function userHolders(ctx: PlanContext): Holder[] {
  const out: Holder[] = [];
  const read = withHandMadeGrants(ctx);
  for (const d of ctx.desired.users) {
    const u = read(d);
    if (u.state !== "present" || !hasAccess(u)) continue;
    const createdBy = mappingCreatedBy(ctx, u.id);
    const why = userRefusal(ctx, u, createdBy);
    if (why !== undefined) {
      refuse(ctx, mappingKey(u.id), why);
      continue;
    }
    out.push({ ...pick(u), assignee: { type: "user", id: u.id }, createdBy });
  }
  return out;
}

/**
 * Leavers whose access this plan revokes (revoke-access.ts), as holders of nothing: their managed
 * grants are planned away like any other removal. None while the deletion guard holds them back.
 */
function leaverHolders(ctx: PlanContext): Holder[] {
  if (ctx.accessRevokesHeld || ctx.accessRevokes.size === 0) return [];
  const workspaces = managesWorkspaces(ctx.desired, ctx.policy);
  const organization = managesOrganization(ctx);
  return [...ctx.accessRevokes.keys()].sort().map((id) => ({
    assignee: { type: "user", id },
    createdBy: undefined,
    leaver: true,
    ...(workspaces ? { workspaces: [] } : {}),
    ...(organization ? { organization: [] } : {}),
  }));
}

const pick = (r: DesiredAccess): DesiredAccess => ({
  ...(r.workspaces !== undefined ? { workspaces: r.workspaces } : {}),
  ...(r.organization !== undefined ? { organization: r.organization } : {}),
});

function refuse(ctx: PlanContext, target: string, why: string): void {
  const kind = why.startsWith("protected") ? "protected" : "refused";
  notice(ctx, { kind, target, message: `${why}; its permissions are not planned` });
}

/** Changes by target (workspace id, or `organization`), split into additions and removals. */
class Changes<C extends PermissionChange | OrganizationChange> {
  readonly grants = new Map<string, C[]>();
  readonly revokes = new Map<string, C[]>();
  add(target: string, into: "grants" | "revokes", change: C): void {
    const map = this[into];
    const list = map.get(target);
    if (list) list.push(change);
    else map.set(target, [change]);
  }
}

/** The workspace changes of one holder: the listed workspaces, and in full mode the unlisted in scope. */
function workspaceChanges(
  ctx: PlanContext,
  h: Holder,
  have: ReadonlyMap<string, WorkspaceGrant>,
  o: { into: Changes<PermissionChange>; inScope: (workspace: string) => boolean },
): void {
  const { into, inScope } = o;
  const wanted = new Map((h.workspaces ?? []).map((w) => [w.workspace, grantOf(w)] as const));
  const pairs = new Map<string, [WorkspaceGrant, WorkspaceGrant]>();
  for (const [ws, want] of wanted) if (inScope(ws)) pairs.set(ws, [have.get(ws) ?? EMPTY_GRANT, want]);
  for (const [ws, grant] of have) {
    if (wanted.has(ws) || !inScope(ws)) continue;
    if (ctx.policy.mode === "full" || h.leaver) pairs.set(ws, [grant, EMPTY_GRANT]);
    else if (!isEmptyGrant(grant)) keptByMode(ctx, h.assignee, ws, grant);
  }
  for (const [ws, [before, after]] of pairs) {
    if (sameGrant(before, after)) continue;
    const added = minusGrant(after, before);
    const middle = unionGrant(before, added);
    if (!isEmptyGrant(added))
      into.add(ws, "grants", { assignee: h.assignee, before: grantOf(before), after: middle });
    if (!isEmptyGrant(minusGrant(before, after)))
      into.add(ws, "revokes", { assignee: h.assignee, before: middle, after: grantOf(after) });
  }
}

/** The organization change of one holder; MANAGE is kept as it is unless allowed. */
function organizationChange(
  ctx: PlanContext,
  h: Holder,
  have: readonly OrganizationPermission[],
  into: Changes<OrganizationChange>,
): void {
  if (h.organization === undefined) return;
  let want = h.organization;
  if (
    !ctx.policy.permissions.allowOrganizationManage &&
    have.includes("MANAGE") &&
    !want.includes("MANAGE")
  ) {
    want = permissionSet([...want, "MANAGE"]);
    const target = h.assignee.type === "user" ? mappingKey(h.assignee.id) : groupKey(h.assignee.id);
    notice(ctx, {
      kind: "kept",
      target,
      message: "keeps organization MANAGE: permissions.organization.allowManage is off",
    });
  }
  if (sameSet(have, want)) return;
  const middle = permissionSet([...have, ...want]);
  if (minusSet(want, have).length > 0)
    into.add("organization", "grants", { assignee: h.assignee, before: [...have], after: middle });
  if (minusSet(have, want).length > 0)
    into.add("organization", "revokes", { assignee: h.assignee, before: middle, after: want });
}

/** Plans every permission step; returns the permission guard, or undefined when nothing is managed. */
export function planPermissions(ctx: PlanContext): Plan["permissionGuard"] {
  if (!managesPermissions(ctx)) return undefined;
  const holders = [...groupHolders(ctx), ...userHolders(ctx), ...leaverHolders(ctx)];
  const actual = ctx.actual.permissions;
  const byAssignee = new Map<string, Map<string, WorkspaceGrant>>();
  for (const a of actual?.assignments ?? []) {
    const key = assigneeKey(a.assignee);
    (byAssignee.get(key) ?? byAssignee.set(key, new Map()).get(key)!).set(a.workspace, a);
  }
  const org = new Map((actual?.organization ?? []).map((o) => [assigneeKey(o.assignee), o.permissions]));
  const ws = new Changes<PermissionChange>();
  const inScope = workspaceMatcher(ctx.policy.permissions.workspaces);
  const orgChanges = new Changes<OrganizationChange>();
  let managed = 0;
  for (const h of holders) {
    const key = assigneeKey(h.assignee);
    const have = byAssignee.get(key) ?? new Map<string, WorkspaceGrant>();
    if (h.workspaces !== undefined) {
      managed += have.size;
      workspaceChanges(ctx, h, have, { into: ws, inScope });
    }
    if (h.organization !== undefined && (org.get(key)?.length ?? 0) > 0) managed += 1;
    organizationChange(ctx, h, org.get(key) ?? [], orgChanges);
  }
  const creators = new Map(holders.map((h) => [assigneeKey(h.assignee), h.createdBy]));
  const revokes = [
    ...addSteps(ctx, ws, creators, {
      grant: "grantWorkspacePermissions",
      revoke: "revokeWorkspacePermissions",
      key: permissionKey,
    }),
    ...addSteps(ctx, orgChanges, creators, {
      grant: "grantOrganizationPermissions",
      revoke: "revokeOrganizationPermissions",
      key: (_target, a) => orgPermissionKey(a),
    }),
  ];
  const wanted = revokes.reduce((n, s) => n + changesOf(s).length, 0);
  const limit = guardLimit(ctx.policy.permissions.maxRemovals, ctx.policy.permissions.allowRemovals, managed);
  if (wanted > limit) for (const s of revokes) s.status = "heldBack";
  return { limit, wanted, managedAssignments: managed };
}

const changesOf = (s: Step): readonly unknown[] => ("changes" in s ? s.changes : []);

/** The grant and revoke steps of every target; returns the revoke steps. */
function addSteps<C extends PermissionChange | OrganizationChange>(
  ctx: PlanContext,
  changes: Changes<C>,
  creators: ReadonlyMap<string, string | undefined>,
  kinds: { grant: StepKind; revoke: StepKind; key: (target: string, a: Assignee) => string },
): Step[] {
  const revokes: Step[] = [];
  const byAssignee = (a: C, b: C): number => {
    const x = assigneeKey(a.assignee);
    const y = assigneeKey(b.assignee);
    return x < y ? -1 : x > y ? 1 : 0;
  };
  for (const [verb, map] of [
    ["grant", changes.grants],
    ["revoke", changes.revokes],
  ] as const)
    for (const [target, list] of map) {
      list.sort(byAssignee);
      const kind = kinds[verb];
      const deps = list.flatMap((c) => creators.get(assigneeKey(c.assignee)) ?? []);
      if (verb === "revoke" && changes.grants.has(target)) deps.push(stepId(kinds.grant, target));
      const step = {
        ...base({
          kind,
          target,
          reason: reasonOf(ctx, verb, list),
          touches: list.map((c) => kinds.key(target, c.assignee)),
          dependsOn: deps,
        }),
        changes: list,
      } as Step;
      ctx.steps.set(step.id, step);
      if (verb === "revoke") revokes.push(step);
    }
  return revokes;
}

function reasonOf(
  ctx: PlanContext,
  verb: "grant" | "revoke",
  list: ReadonlyArray<{ assignee: Assignee }>,
): string {
  const groups = list.filter((c) => c.assignee.type === "userGroup").length;
  const users = list.length - groups;
  const who = [
    groups > 0 ? `${groups} group${groups === 1 ? "" : "s"}` : "",
    users > 0 ? `${users} user${users === 1 ? "" : "s"}` : "",
  ]
    .filter(Boolean)
    .join(" and ");
  if (verb === "grant")
    return `${who} gain${list.length === 1 ? "s" : ""} permissions the desired state lists`;
  const leavers = list.every((c) => c.assignee.type === "user" && ctx.accessRevokes.has(c.assignee.id));
  const why = leavers
    ? "access revoked (leavers who sign in through the identity provider)"
    : ctx.policy.mode === "full"
      ? "the desired state does not list them"
      : "the desired state lists fewer";
  return `${who} lose${list.length === 1 ? "s" : ""} permissions: ${why}`;
}
