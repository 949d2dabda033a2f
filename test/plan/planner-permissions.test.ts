/** The planner's permission rules, case by case (docs/permissions.md). */
import { describe, expect, test } from "vitest";
import type { ActualPermissions, WorkspaceAssignment } from "../../src/permissions.js";
import { summarizePlan } from "../../src/plan/index.js";
import {
  checkPermissionPolicy,
  checkWorkspaceReferences,
  permissionListing,
} from "../../src/plan/permission-checks.js";
import type { Policy } from "../../src/plan/policy.js";
import {
  aDesiredGroup,
  aDesiredState,
  aGroup,
  aMapping,
  aPolicy,
  aSyncedUser,
  aUser,
  planOf,
  step,
  stepIds,
} from "./builders.js";

const group = (id: string) => ({ type: "userGroup" as const, id });
const grant = (
  workspace: string,
  assignee: string,
  permissions: string[],
  hierarchy: string[] = [],
): WorkspaceAssignment =>
  ({ workspace, assignee: group(assignee), permissions, hierarchy }) as WorkspaceAssignment;
const perms = (
  assignments: WorkspaceAssignment[],
  more: Partial<ActualPermissions> = {},
): ActualPermissions => ({
  workspaces: ["sales-emea", "finance", "hr"].map((id) => ({ id })),
  assignments,
  ...more,
});
const scoped = (p: Partial<Policy["permissions"]> = {}, rest: Partial<Policy> = {}): Partial<Policy> => ({
  ...rest,
  permissions: {
    workspaces: ["sales-*", "finance"],
    maxRemovals: { count: 10 },
    allowOrganizationManage: false,
    ...p,
  },
});
const ws = (workspace: string, permissions: string[], hierarchy: string[] = []) =>
  ({ workspace, permissions, hierarchy }) as never;

describe("workspace permissions", () => {
  test("a desired state without permissions plans none and has no permission guard", () => {
    const p = planOf({
      groups: [aDesiredGroup({ id: "sales" })],
      actual: { groups: [aGroup({ id: "sales" })] },
    });
    expect(p.steps).toEqual([]);
    expect(p.permissionGuard).toBeUndefined();
    expect(summarizePlan(p).permissions).toBeUndefined();
  });

  test("groups gain what they lack; a mixed change is split into its additions, then its removals", () => {
    const p = planOf({
      groups: [
        aDesiredGroup({ id: "sales", workspaces: [ws("sales-emea", ["VIEW", "EXPORT"])] }),
        aDesiredGroup({ id: "finance", workspaces: [ws("finance", ["ANALYZE"], ["VIEW"])] }),
        aDesiredGroup({ id: "new", workspaces: [ws("sales-emea", ["VIEW"])] }),
      ],
      actual: {
        groups: [aGroup({ id: "sales" }), aGroup({ id: "finance" })],
        permissions: perms([grant("sales-emea", "sales", ["VIEW"]), grant("finance", "finance", ["EXPORT"])]),
      },
      policy: scoped(),
    });
    expect(stepIds(p)).toEqual([
      "createGroup:new",
      "grantWorkspacePermissions:finance",
      "grantWorkspacePermissions:sales-emea",
      "revokeWorkspacePermissions:finance",
    ]);
    expect(step(p, "grantWorkspacePermissions:sales-emea")).toMatchObject({
      dependsOn: ["createGroup:new"],
      touches: ["permission:sales-emea/userGroup/new", "permission:sales-emea/userGroup/sales"],
      changes: [
        {
          assignee: group("new"),
          before: { permissions: [], hierarchy: [] },
          after: { permissions: ["VIEW"], hierarchy: [] },
        },
        {
          assignee: group("sales"),
          before: { permissions: ["VIEW"], hierarchy: [] },
          after: { permissions: ["EXPORT", "VIEW"], hierarchy: [] },
        },
      ],
    });
    // finance: EXPORT → ANALYZE (+ hierarchy VIEW): first add, then take EXPORT away.
    expect(step(p, "revokeWorkspacePermissions:finance")).toMatchObject({
      dependsOn: ["grantWorkspacePermissions:finance"],
      changes: [
        {
          before: { permissions: ["ANALYZE", "EXPORT"], hierarchy: ["VIEW"] },
          after: { permissions: ["ANALYZE"], hierarchy: ["VIEW"] },
        },
      ],
    });
    expect(p.objects["permission:sales-emea/userGroup/new"]).toBe("absent");
    expect(p.objects["permission:sales-emea/userGroup/sales"]).toMatch(/^[0-9a-f]{16}$/);
    expect(p.permissionGuard).toEqual({ limit: 10, wanted: 1, managedAssignments: 2 });
    expect(summarizePlan(p).permissions).toEqual({
      grant: 3,
      revoke: 1,
      heldBack: 0,
      changes: [
        { on: "finance", change: "gain", permissions: ["ANALYZE"], hierarchy: ["VIEW"], groups: 1, users: 0 },
        { on: "finance", change: "lose", permissions: ["EXPORT"], hierarchy: [], groups: 1, users: 0 },
        { on: "sales-emea", change: "gain", permissions: ["EXPORT"], hierarchy: [], groups: 1, users: 0 },
        { on: "sales-emea", change: "gain", permissions: ["VIEW"], hierarchy: [], groups: 1, users: 0 },
      ],
    });
  });

  test("incremental keeps unlisted workspaces; full empties the in-scope ones, never the others", () => {
    const input = {
      groups: [aDesiredGroup({ id: "sales", workspaces: [ws("sales-emea", ["VIEW"])] })],
      actual: {
        groups: [aGroup({ id: "sales" })],
        permissions: perms([
          grant("sales-emea", "sales", ["VIEW"]),
          grant("finance", "sales", ["ANALYZE"]),
          grant("hr", "sales", ["VIEW"]),
        ]),
      },
    };
    expect(planOf({ ...input, policy: scoped() }).steps).toEqual([]);
    const full = planOf({ ...input, policy: scoped({}, { mode: "full" }) });
    expect(stepIds(full)).toEqual(["revokeWorkspacePermissions:finance"]);
    expect(step(full, "revokeWorkspacePermissions:finance").reason).toBe(
      "1 group loses permissions: the desired state does not list them",
    );
  });

  test("unmanaged assignees (no workspaces field, undeclared, other users) are never in a change", () => {
    const p = planOf({
      groups: [aDesiredGroup({ id: "sales", workspaces: [] }), aDesiredGroup({ id: "kept" })],
      actual: {
        groups: [aGroup({ id: "sales" }), aGroup({ id: "kept" }), aGroup({ id: "other" })],
        permissions: perms([
          grant("finance", "sales", ["VIEW"]),
          grant("finance", "kept", ["VIEW"]),
          grant("finance", "other", ["MANAGE"]),
        ]),
      },
      policy: scoped({}, { mode: "full" }),
    });
    expect(stepIds(p)).toEqual(["revokeWorkspacePermissions:finance"]);
    expect(step(p, "revokeWorkspacePermissions:finance")).toMatchObject({
      changes: [{ assignee: group("sales") }],
    });
  });

  test("removals over permissions.maxRemovals are all held back; grants still go; the run's allowance lifts it", () => {
    const input = {
      groups: [
        aDesiredGroup({ id: "a", workspaces: [ws("finance", ["VIEW"])] }),
        aDesiredGroup({ id: "b", workspaces: [ws("sales-emea", [])] }),
      ],
      actual: {
        groups: [aGroup({ id: "a" }), aGroup({ id: "b" })],
        permissions: perms([grant("finance", "a", ["EXPORT"]), grant("sales-emea", "b", ["VIEW"])]),
      },
    };
    const held = planOf({ ...input, policy: scoped({ maxRemovals: { count: 1 } }) });
    expect(stepIds(held)).toEqual([
      "grantWorkspacePermissions:finance",
      "revokeWorkspacePermissions:finance (heldBack)",
      "revokeWorkspacePermissions:sales-emea (heldBack)",
    ]);
    expect(held.permissionGuard).toEqual({ limit: 1, wanted: 2, managedAssignments: 2 });
    expect(summarizePlan(held).permissionGuard).toMatchObject({ heldBack: true });
    expect(summarizePlan(held).deleteGuard.heldBack).toBe(false);
    const allowed = planOf({ ...input, policy: scoped({ maxRemovals: { count: 1 }, allowRemovals: 2 }) });
    expect(allowed.steps.every((s) => s.status === "planned")).toBe(true);
  });

  test("a new user's grants wait for its mapping; protected users and the caller are never changed", () => {
    const jane = aUser({ email: "jane@x.com", id: "jane", workspaces: [ws("finance", ["VIEW"])] });
    const admin = aSyncedUser("admin@x.com", { id: "admin", workspaces: [ws("finance", ["VIEW"])] });
    const me = aSyncedUser("me@x.com", { id: "me", workspaces: [ws("finance", ["VIEW"])] });
    const p = planOf({
      users: [jane, admin.user, me.user],
      actual: {
        idpUsers: [admin.idp, me.idp],
        mappings: [admin.mapping, me.mapping],
        callerId: "me",
        permissions: perms([]),
      },
      policy: scoped(),
    });
    expect(step(p, "grantWorkspacePermissions:finance")).toMatchObject({
      dependsOn: ["createMapping:jane"],
      changes: [{ assignee: { type: "user", id: "jane" } }],
    });
    expect(p.notices.filter((n) => n.kind === "protected").map((n) => n.target)).toEqual([
      "mapping:admin",
      "mapping:me",
    ]);
  });
});

describe("organization permissions", () => {
  test("set exactly for the assignees that list them; MANAGE is kept unless allowed", () => {
    const input = {
      groups: [
        aDesiredGroup({ id: "devs", organization: ["SELF_CREATE_TOKEN"] }),
        aDesiredGroup({ id: "admins", organization: [] }),
      ],
      actual: {
        groups: [aGroup({ id: "devs" }), aGroup({ id: "admins" })],
        permissions: perms([], {
          organization: [{ assignee: group("admins"), permissions: ["MANAGE", "SELF_CREATE_TOKEN"] }],
        }),
      },
    };
    const p = planOf({ ...input, policy: scoped() });
    expect(stepIds(p)).toEqual([
      "grantOrganizationPermissions:organization",
      "revokeOrganizationPermissions:organization",
    ]);
    expect(step(p, "revokeOrganizationPermissions:organization")).toMatchObject({
      touches: ["orgPermission:userGroup/admins"],
      changes: [{ assignee: group("admins"), before: ["MANAGE", "SELF_CREATE_TOKEN"], after: ["MANAGE"] }],
    });
    expect(p.notices).toContainEqual(expect.objectContaining({ kind: "kept", target: "group:admins" }));
    const allowed = planOf({ ...input, policy: scoped({ allowOrganizationManage: true }) });
    expect(step(allowed, "revokeOrganizationPermissions:organization")).toMatchObject({
      changes: [{ after: [] }],
    });
  });
});

describe("checks", () => {
  const desired = aDesiredState(
    [aUser({ email: "jane@x.com", organization: ["MANAGE"] })],
    [aDesiredGroup({ id: "sales", workspaces: [ws("sales-emea", ["VIEW"]), ws("hr", ["VIEW"])] })],
  );

  test("workspaces within permissions.workspaces, MANAGE allowed; unset, a warning that they are left alone", () => {
    const unset = checkPermissionPolicy(desired, aPolicy());
    expect(unset.map((p) => p.rule)).toEqual([
      "permissions-not-configured",
      "organization-manage-not-allowed",
    ]);
    expect(unset[0]!.message).toMatch(
      /^group "sales" carries workspace permissions, but permissions.workspaces is not set/,
    );
    const out = checkPermissionPolicy(desired, aPolicy(scoped()));
    expect(out.map((p) => `${p.rule}: ${p.message}`)).toEqual([
      'workspace-out-of-scope: workspace "hr" is outside permissions.workspaces (sales-*, finance): add it there, or leave it out of group "sales"',
      'organization-manage-not-allowed: user "jane" would be given organization MANAGE (it administers everything): set permissions.organization.allowManage: true if that is meant',
    ]);
  });

  test("a workspace the organization does not have is unknown-workspace", () => {
    const problems = checkWorkspaceReferences(
      desired,
      [{ id: "sales-emea" }],
      aPolicy(scoped({ workspaces: ["*"] })),
    );
    expect(problems.map((p) => [p.rule, p.field])).toEqual([["unknown-workspace", "workspaces"]]);
    expect(problems[0]!.message).toMatch(/^workspace "hr" does not exist/);
  });

  test("what to list: nothing without permissions; the managed users, the organization when named", () => {
    expect(permissionListing(aDesiredState([aUser({ email: "a@x.com" })]), aPolicy(), 500)).toBeUndefined();
    // Workspace permissions with permissions.workspaces unset are not managed: nothing to list for them.
    const onlyWorkspaces = aDesiredState([], [aDesiredGroup({ id: "g", workspaces: [] })]);
    expect(permissionListing(onlyWorkspaces, aPolicy(), 500)).toBeUndefined();
    const listing = permissionListing(desired, aPolicy(scoped()), 500)!;
    expect(listing).toMatchObject({ users: [], organization: true, pageSize: 500 });
    expect(["sales-emea", "finance", "hr"].map(listing.inScope)).toEqual([true, true, false]);
    const withUser = aDesiredState([aUser({ email: "j@x.com", id: "j", workspaces: [] })]);
    expect(permissionListing(withUser, aPolicy(scoped()), 10)).toMatchObject({
      users: ["j"],
      organization: false,
    });
  });
});

test("a mapping the plan refuses (out of scope) gets no permission step either", () => {
  const p = planOf({
    users: [aUser({ email: "x@other.org", id: "x", workspaces: [ws("finance", ["VIEW"])] })],
    actual: { mappings: [aMapping({ id: "x", email: "x@other.org" })], permissions: perms([]) },
    policy: scoped({}, { scope: { emailDomains: ["example.com"] } }),
  });
  expect(p.steps).toEqual([]);
  expect(p.notices).toContainEqual(
    expect.objectContaining({
      kind: "refused",
      target: "mapping:x",
      message: "outside policy.scope; its permissions are not planned",
    }),
  );
});
