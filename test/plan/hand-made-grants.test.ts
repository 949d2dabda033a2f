/** Hand-made direct grants to people the file lists without `workspaces` (issue 39, docs/permissions.md). */
import { describe, expect, test } from "vitest";
import type { ActualPermissions, WorkspaceAssignment } from "../../src/permissions.js";
import { summarizePlan } from "../../src/plan/index.js";
import { permissionListing } from "../../src/plan/permission-checks.js";
import type { Policy } from "../../src/plan/policy.js";
import {
  aDesiredGroup,
  aDesiredState,
  aGroup,
  aPolicy,
  aSyncedUser,
  aUser,
  planOf,
  step,
  stepIds,
} from "./builders.js";

const user = (id: string) => ({ type: "user" as const, id });
const grant = (
  workspace: string,
  assignee: { type: "user" | "userGroup"; id: string },
  permissions: string[],
  hierarchy: string[] = [],
): WorkspaceAssignment => ({ workspace, assignee, permissions, hierarchy }) as WorkspaceAssignment;
const perms = (assignments: WorkspaceAssignment[]): ActualPermissions => ({
  workspaces: ["sales", "finance", "hr"].map((id) => ({ id })),
  assignments,
});
const policy = (rest: Partial<Policy> = {}): Partial<Policy> => ({
  ...rest,
  permissions: {
    workspaces: ["sales", "finance"],
    maxRemovals: { count: 10 },
    allowOrganizationManage: false,
  },
});
const ws = (workspace: string, permissions: string[]) => ({ workspace, permissions, hierarchy: [] }) as never;

/** jane is in sales (which holds VIEW on sales); someone gave her EXPORT+VIEW on finance by hand, and VIEW on hr. */
function organization(extra: { janeWorkspaces?: never[] } = {}) {
  const jane = aSyncedUser("jane@example.com", {
    id: "jane",
    groups: ["sales"],
    ...(extra.janeWorkspaces !== undefined ? { workspaces: extra.janeWorkspaces } : {}),
  });
  const bob = aSyncedUser("bob@example.com", { id: "bob", groups: ["sales"] });
  return {
    users: [jane.user, bob.user],
    groups: [aDesiredGroup({ id: "sales", workspaces: [ws("sales", ["VIEW"])] })],
    actual: {
      idpUsers: [jane.idp, bob.idp],
      mappings: [jane.mapping, bob.mapping],
      groups: [aGroup({ id: "sales" })],
      permissions: perms([
        grant("sales", { type: "userGroup", id: "sales" }, ["VIEW"]),
        grant("finance", user("jane"), ["EXPORT", "VIEW"]),
        grant("hr", user("jane"), ["VIEW"]),
      ]),
    },
  };
}

describe("a hand-made direct grant to a person the file lists without workspaces", () => {
  test("full mode: drift, revoked on the in-scope workspace only, counted by the guard", () => {
    const p = planOf({ ...organization(), policy: policy({ mode: "full" }) });
    expect(stepIds(p)).toEqual(["revokeWorkspacePermissions:finance"]);
    expect(step(p, "revokeWorkspacePermissions:finance")).toMatchObject({
      touches: ["permission:finance/user/jane"],
      reason: "1 user loses permissions: the desired state does not list them",
      changes: [
        {
          assignee: user("jane"),
          before: { permissions: ["EXPORT", "VIEW"], hierarchy: [] },
          after: { permissions: [], hierarchy: [] },
        },
      ],
    });
    // Managed: the group's grant and jane's two as listed (a real listing holds only in-scope workspaces).
    expect(p.permissionGuard).toEqual({ limit: 10, wanted: 1, managedAssignments: 3 });
    expect(summarizePlan(p).permissions?.changes).toEqual([
      { on: "finance", change: "lose", permissions: ["EXPORT", "VIEW"], hierarchy: [], groups: 0, users: 1 },
    ]);
    // bob holds nothing of his own: he is not made a holder, so no notice names him.
    expect(p.notices.filter((n) => n.target.includes("bob"))).toEqual([]);
  });

  test("over permissions.maxRemovals the revoke is held back like any other", () => {
    const p = planOf({
      ...organization(),
      policy: {
        ...policy({ mode: "full" }),
        permissions: { workspaces: ["*"], maxRemovals: { count: 1 }, allowOrganizationManage: false },
      },
    });
    expect(stepIds(p)).toEqual([
      "revokeWorkspacePermissions:finance (heldBack)",
      "revokeWorkspacePermissions:hr (heldBack)",
    ]);
  });

  test("incremental mode leaves it alone (absent means not managed there)", () => {
    expect(planOf({ ...organization(), policy: policy() }).steps).toEqual([]);
  });

  test("a person who lists workspaces keeps the rule they always had: what they list, exactly", () => {
    const p = planOf({
      ...organization({ janeWorkspaces: [ws("finance", ["VIEW"])] }),
      policy: policy({ mode: "full" }),
    });
    expect(step(p, "revokeWorkspacePermissions:finance")).toMatchObject({
      changes: [{ assignee: user("jane"), after: { permissions: ["VIEW"], hierarchy: [] } }],
    });
  });

  test("a protected or out-of-scope person is never changed, and the plan says why", () => {
    const protectedRun = planOf({
      ...organization(),
      policy: policy({ mode: "full", protect: ["jane@example.com"] }),
    });
    expect(protectedRun.steps.filter((s) => s.kind.includes("Permissions"))).toEqual([]);
    expect(protectedRun.notices).toContainEqual(
      expect.objectContaining({ kind: "protected", target: "mapping:jane" }),
    );
    const outOfScope = planOf({
      ...organization(),
      policy: policy({ mode: "full", scope: { emailDomains: ["other.org"] } }),
    });
    expect(outOfScope.steps.filter((s) => s.kind.includes("Permissions"))).toEqual([]);
  });

  test("without workspace permissions in the file nothing changes: permissions are not managed", () => {
    const input = organization();
    const p = planOf({
      ...input,
      groups: [aDesiredGroup({ id: "sales" })],
      policy: policy({ mode: "full" }),
    });
    expect(p.steps).toEqual([]);
  });

  test("the listing reads every user's grants in full mode when the file lists someone without workspaces", () => {
    const state = aDesiredState(
      [
        aUser({ email: "jane@example.com", id: "jane" }),
        aUser({ email: "al@example.com", id: "al", workspaces: [] }),
      ],
      [aDesiredGroup({ id: "sales", workspaces: [ws("sales", ["VIEW"])] })],
    );
    expect(permissionListing(state, aPolicy(policy({ mode: "full" })), 500)?.users).toBe("all");
    expect(permissionListing(state, aPolicy(policy()), 500)?.users).toEqual(["al"]);
    const everyoneLists = aDesiredState([aUser({ email: "al@example.com", id: "al", workspaces: [] })]);
    expect(
      permissionListing(everyoneLists, aPolicy(policy({ mode: "full", deletions: "remove" })), 500)?.users,
    ).toEqual(["al"]);
    // With deletions: revoke a full run may revoke a leaver the file does not name: their grants are read too.
    expect(permissionListing(everyoneLists, aPolicy(policy({ mode: "full" })), 500)?.users).toBe("all");
  });
});
