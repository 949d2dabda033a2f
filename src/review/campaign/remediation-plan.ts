/**
 * The revocations usersync may carry out itself, as a plan in the usual format (docs/plan-format.md):
 * mapping updates that take a person out of a group, and workspace and organization permission
 * revocations of a person's own grants. Built against a fresh listing, so every object a step
 * touches is fingerprinted and `apply --plan` refuses a step whose object changed since (stale,
 * exit 3); removals over `permissions.maxRemovals` (a share of the campaign's rows) are held back
 * like every plan's (exit 3). Pure.
 */
import {
  assigneeKey,
  type Assignee,
  type OrganizationPermission,
  type WorkspacePermission,
} from "../../permissions.js";
import { estimate } from "../../plan/estimate.js";
import { defaultLimits, type Limits } from "../../plan/estimate.js";
import {
  fingerprintGrant,
  fingerprintMapping,
  hash,
  mappingKey,
  orgPermissionKey,
  permissionKey,
} from "../../plan/fingerprint.js";
import { guardLimit } from "../../plan/guard.js";
import { countSteps } from "../../plan/planner.js";
import type { Policy } from "../../plan/policy.js";
import { PLAN_FORMAT_VERSION, type Plan, type Step } from "../../plan/types.js";
import type { ActualState, ApiProfile } from "../../service/types.js";
import type { RowRemedy } from "./remedies.js";

export interface RemediationPlanInput {
  remedies: readonly RowRemedy[];
  actual: ActualState;
  profile: ApiProfile;
  policy: Policy;
  /** Rows of the campaign: the base a percentage of permissions.maxRemovals is taken of. */
  rows: number;
  /** The campaign's id and the decisions' digest: the plan's input fingerprint. */
  inputs: unknown;
  limits?: Limits;
}

interface Gathered {
  leave: Map<string, Set<string>>; // userId -> groups to leave
  grants: Map<
    string,
    { workspace: string; userId: string; keep: Set<string> | "all"; hierarchy: boolean; why: string[] }
  >;
  org: Map<string, { keep: Set<string>; why: string[] }>;
  why: Map<string, string[]>;
}

function gather(remedies: readonly RowRemedy[]): Gathered {
  const g: Gathered = { leave: new Map(), grants: new Map(), org: new Map(), why: new Map() };
  for (const r of remedies) {
    const userId = r.userId;
    if (userId === undefined) continue;
    for (const a of r.actions) {
      if (a.via !== "plan") continue;
      const why = `${r.decision.reviewer} decided ${r.decision.decision} on ${r.rowId}`;
      if (a.kind === "leaveGroup") {
        (g.leave.get(userId) ?? g.leave.set(userId, new Set()).get(userId)!).add(a.group);
        (g.why.get(userId) ?? g.why.set(userId, []).get(userId)!).push(why);
      } else if (a.kind === "narrowGrant") {
        const key = `${a.workspace}\u0000${userId}\u0000${a.hierarchy}`;
        const e = g.grants.get(key) ?? {
          workspace: a.workspace,
          userId,
          keep: new Set(a.keep),
          hierarchy: a.hierarchy,
          why: [],
        };
        if (e.keep !== "all") for (const k of [...e.keep]) if (!a.keep.includes(k)) e.keep.delete(k);
        e.why.push(why);
        g.grants.set(key, e);
      } else {
        const e = g.org.get(userId) ?? { keep: new Set(a.keep), why: [] };
        for (const k of [...e.keep]) if (!a.keep.includes(k)) e.keep.delete(k);
        e.why.push(why);
        g.org.set(userId, e);
      }
    }
  }
  return g;
}

// eslint-disable-next-line max-lines-per-function -- one step kind after another, each from the listing
export function remediationPlan(input: RemediationPlanInput): Plan {
  const { actual } = input;
  const g = gather(input.remedies);
  const steps: Step[] = [];
  const objects: Record<string, string> = {};
  const mappings = new Map(actual.mappings.map((m) => [m.id, m] as const));
  for (const [userId, groups] of g.leave) {
    const m = mappings.get(userId);
    if (m === undefined || !m.groups.some((x) => groups.has(x))) continue;
    const key = mappingKey(userId);
    objects[key] = fingerprintMapping(m);
    steps.push({
      id: `updateMapping:${userId}`,
      kind: "updateMapping",
      target: userId,
      status: "planned",
      dependsOn: [],
      reason: `access review: ${g.why.get(userId)!.join("; ")}: leaves ${[...groups]
        .filter((x) => m.groups.includes(x))
        .sort()
        .join(", ")}`,
      touches: [key],
      before: m,
      after: { ...m, groups: m.groups.filter((x) => !groups.has(x)) },
    });
  }
  const assignments = actual.permissions?.assignments ?? [];
  const byWorkspace = new Map<
    string,
    Array<{
      assignee: Assignee;
      before: { permissions: WorkspacePermission[]; hierarchy: WorkspacePermission[] };
      after: { permissions: WorkspacePermission[]; hierarchy: WorkspacePermission[] };
    }>
  >();
  for (const e of g.grants.values()) {
    const assignee: Assignee = { type: "user", id: e.userId };
    const held = assignments.find(
      (a) => a.workspace === e.workspace && assigneeKey(a.assignee) === assigneeKey(assignee),
    );
    if (held === undefined) continue;
    const before = { permissions: held.permissions, hierarchy: held.hierarchy };
    const keep = (ps: readonly WorkspacePermission[]): WorkspacePermission[] =>
      ps.filter((p) => e.keep !== "all" && e.keep.has(p));
    const after = e.hierarchy
      ? { permissions: held.permissions, hierarchy: keep(held.hierarchy) }
      : { permissions: keep(held.permissions), hierarchy: held.hierarchy };
    if (
      after.permissions.length === before.permissions.length &&
      after.hierarchy.length === before.hierarchy.length
    )
      continue;
    objects[permissionKey(e.workspace, assignee)] = fingerprintGrant(before);
    (byWorkspace.get(e.workspace) ?? byWorkspace.set(e.workspace, []).get(e.workspace)!).push({
      assignee,
      before,
      after,
    });
  }
  for (const [workspace, changes] of [...byWorkspace].sort(([a], [b]) => (a < b ? -1 : 1)))
    steps.push({
      id: `revokeWorkspacePermissions:${workspace}`,
      kind: "revokeWorkspacePermissions",
      target: workspace,
      status: "planned",
      dependsOn: [],
      reason: `access review: ${changes.length} person(s) lose a grant reviewers revoked or narrowed`,
      touches: changes.map((c) => permissionKey(workspace, c.assignee)),
      changes,
    });
  const orgChanges = [];
  for (const [userId, e] of g.org) {
    const assignee: Assignee = { type: "user", id: userId };
    const held = actual.permissions?.organization?.find(
      (a) => assigneeKey(a.assignee) === assigneeKey(assignee),
    );
    if (held === undefined) continue;
    const after = held.permissions.filter((p) => e.keep.has(p)) as OrganizationPermission[];
    if (after.length === held.permissions.length) continue;
    objects[orgPermissionKey(assignee)] = fingerprintGrant(held.permissions);
    orgChanges.push({ assignee, before: held.permissions, after });
  }
  if (orgChanges.length > 0)
    steps.push({
      id: "revokeOrganizationPermissions:organization",
      kind: "revokeOrganizationPermissions",
      target: "organization",
      status: "planned",
      dependsOn: [],
      reason: `access review: ${orgChanges.length} person(s) lose organization permissions reviewers revoked or narrowed`,
      touches: orgChanges.map((c) => orgPermissionKey(c.assignee)),
      changes: orgChanges,
    });
  const wanted = steps.reduce((n, s) => n + ("changes" in s ? s.changes.length : 1), 0);
  const limit = guardLimit(
    input.policy.permissions.maxRemovals,
    input.policy.permissions.allowRemovals,
    input.rows,
  );
  if (wanted > limit) for (const s of steps) s.status = "heldBack";
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    profile: input.profile,
    mode: input.policy.mode,
    membership: input.policy.membership,
    deletions: input.policy.deletions,
    inputFingerprint: hash(input.inputs),
    objects: Object.fromEntries(Object.entries(objects).sort(([a], [b]) => (a < b ? -1 : 1))),
    steps,
    notices: [],
    counts: countSteps(steps),
    deleteGuard: { limit: 0, wanted: 0, managedUsers: actual.mappings.length },
    permissionGuard: { limit, wanted, managedAssignments: input.rows },
    estimate: estimate(steps, input.limits ?? defaultLimits),
  };
}
