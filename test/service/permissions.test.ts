/**
 * The permission calls of the v1 client against the emulator: both ways of listing give the same
 * grants for the number of requests `listingCost` says, every request is an operation of the
 * official spec with a body of its schema, and a managePermissions whose answer is lost is sent
 * again (it sets absolute values).
 */
import { describe, expect, it } from "vitest";
import { NetworkError } from "../../src/errors.js";
import type { EmulatorSeed } from "../../src/emulator/index.js";
import { listActualState, listingCost, type PermissionListing } from "../../src/service/index.js";
import { operationProblems, validateAgainst } from "../helpers/openapi.js";
import { withEmulatorClient } from "../helpers/env.js";

const seed: EmulatorSeed = {
  groups: [{ id: "sales" }, { id: "finance" }, { id: "emea" }, { id: "other" }],
  mappings: [
    { id: "jane", email: "jane@x.com", groups: ["sales"] },
    { id: "joe", email: "joe@x.com", groups: [] },
  ],
  workspaces: [
    { id: "root" },
    {
      id: "sales-emea",
      parent: "root",
      permissions: [
        { userGroup: "sales", permissions: ["VIEW", "EXPORT"] },
        { userGroup: "emea", permissions: ["ANALYZE"], hierarchy: ["VIEW"] },
        { user: "jane", permissions: ["EXPORT_PDF"] },
        { user: "joe", permissions: ["VIEW"] },
      ],
    },
    { id: "finance", permissions: [{ userGroup: "finance", permissions: ["ANALYZE"] }] },
    { id: "hr", permissions: [{ userGroup: "other", permissions: ["MANAGE"] }] },
  ],
  organizationPermissions: [{ userGroup: "other", permissions: ["SELF_CREATE_TOKEN"] }],
};

const listing = (pageSize: number): PermissionListing => ({
  inScope: (id) => id !== "hr",
  users: ["jane"],
  organization: true,
  pageSize,
});

async function listWith(pageSize: number) {
  const env = await withEmulatorClient({ emulator: { seed }, client: { profile: "v1", pageSize } });
  try {
    const actual = await listActualState(env.client, { permissions: listing(pageSize) });
    const log = env.emulator.requestLog();
    const permissionRequests = log.filter((e) => /layout\/workspaces|userManagement/.test(e.url)).length;
    return { permissions: actual.permissions!, log, permissionRequests };
  } finally {
    await env.close();
  }
}

describe("listing permissions", () => {
  it("by workspace and by assignee gives the same grants, each in the requests it was counted at", async () => {
    const sizes = { workspacesInScope: 3, groups: 4, users: 2 };
    // Page size 1: four pages of groups and one user cost more than three layouts.
    expect(listingCost(listing(1), sizes)).toEqual({ byWorkspace: 3, byAssignee: 5 });
    expect(listingCost(listing(500), sizes)).toEqual({ byWorkspace: 3, byAssignee: 2 });
    const a = await listWith(1);
    const b = await listWith(500);
    expect(a.permissions.via).toBe("byWorkspace");
    expect(b.permissions.via).toBe("byAssignee");
    expect(a.permissionRequests).toBe(3);
    expect(b.permissionRequests).toBe(2);
    const { via: _a, ...one } = a.permissions;
    const { via: _b, ...two } = b.permissions;
    expect(one).toEqual(two);
    expect(one.assignments).toEqual([
      {
        workspace: "finance",
        assignee: { type: "userGroup", id: "finance" },
        permissions: ["ANALYZE"],
        hierarchy: [],
      },
      {
        workspace: "sales-emea",
        assignee: { type: "user", id: "jane" },
        permissions: ["EXPORT_PDF"],
        hierarchy: [],
      },
      {
        workspace: "sales-emea",
        assignee: { type: "userGroup", id: "emea" },
        permissions: ["ANALYZE"],
        hierarchy: ["VIEW"],
      },
      {
        workspace: "sales-emea",
        assignee: { type: "userGroup", id: "sales" },
        permissions: ["EXPORT", "VIEW"],
        hierarchy: [],
      },
    ]);
    expect(one.workspaces).toEqual([
      { id: "finance" },
      { id: "hr" },
      { id: "root" },
      { id: "sales-emea", parent: "root" },
    ]);
    expect(one.organization).toEqual([
      { assignee: { type: "userGroup", id: "other" }, permissions: ["SELF_CREATE_TOKEN"] },
    ]);
    for (const { log } of [a, b]) expect(log.flatMap((e) => operationProblems(e.method, e.url))).toEqual([]);
  });

  it("reads every user's grants when asked for all (export)", async () => {
    const env = await withEmulatorClient({ emulator: { seed }, client: { profile: "v1", pageSize: 1 } });
    try {
      const all = await env.client.permissions.listAssigneePermissions("user");
      expect(all.map((x) => x.assignee.id).sort()).toEqual(["jane", "joe"]);
      // Three users (jane, joe and the token's owner, admin, mapped by the emulator, without grants).
      const pages = env.emulator.requestLog().filter((e) => e.url.includes("/userManagement/users"));
      expect(pages.map((e) => e.url)).toEqual([
        "/api/v1/actions/userManagement/users?page=0&size=1",
        "/api/v1/actions/userManagement/users?page=1&size=1",
        "/api/v1/actions/userManagement/users?page=2&size=1",
      ]);
      expect(await env.client.permissions.getUserPermissions("nobody")).toEqual([]);
    } finally {
      await env.close();
    }
  });
});

describe("changing permissions", () => {
  it("sends managePermissions bodies of the official schema, to the workspace and the organization", async () => {
    const env = await withEmulatorClient({ emulator: { seed }, client: { profile: "v1" } });
    try {
      const sales = { type: "userGroup" as const, id: "sales" };
      await env.client.permissions.manageWorkspacePermissions("finance", [
        { assignee: sales, permissions: ["VIEW"], hierarchy: ["VIEW"] },
      ]);
      await env.client.permissions.manageOrganizationPermissions([
        { assignee: sales, permissions: ["SELF_CREATE_TOKEN"] },
      ]);
      expect(await env.client.permissions.getWorkspacePermissions("finance")).toContainEqual({
        workspace: "finance",
        assignee: sales,
        permissions: ["VIEW"],
        hierarchy: ["VIEW"],
      });
      const writes = env.emulator.requestLog().filter((e) => e.method === "POST");
      expect(writes.map((w) => w.url)).toEqual([
        "/api/v1/actions/workspaces/finance/managePermissions",
        "/api/v1/actions/organization/managePermissions",
      ]);
      const [ws, org] = writes as unknown as [{ body: unknown[] }, { body: unknown[] }];
      expect(ws.body.flatMap((i) => validateAgainst("metadata", "WorkspacePermissionAssignment", i))).toEqual(
        [],
      );
      expect(
        org.body.flatMap((i) => validateAgainst("metadata", "OrganizationPermissionAssignment", i)),
      ).toEqual([]);
      expect(writes.flatMap((e) => operationProblems(e.method, e.url))).toEqual([]);
    } finally {
      await env.close();
    }
  });

  it("sends a managePermissions again when its answer is lost (it sets absolute values)", async () => {
    const env = await withEmulatorClient({
      emulator: { seed, faults: { loseAnswer: 1, pathPattern: /managePermissions/ } },
      client: { profile: "v1", retries: 1 },
    });
    try {
      const grant = {
        assignee: { type: "userGroup" as const, id: "emea" },
        permissions: ["VIEW" as const],
        hierarchy: [],
      };
      await expect(
        env.client.permissions.manageWorkspacePermissions("finance", [grant]),
      ).rejects.toBeInstanceOf(NetworkError);
      expect(env.emulator.requestLog().filter((e) => e.method === "POST")).toHaveLength(2);
      expect(env.emulator.state().workspaces!.find((w) => w.id === "finance")!.permissions).toContainEqual({
        userGroup: "emea",
        permissions: ["VIEW"],
        hierarchy: [],
      });
    } finally {
      await env.close();
    }
  });

  it("a legacy client has no permissions: every call says which API they need", async () => {
    const env = await withEmulatorClient({ client: { profile: "legacy" } });
    try {
      await expect(env.client.permissions.listWorkspaces()).rejects.toThrow(
        /need the current API \(profile v1\)/,
      );
    } finally {
      await env.close();
    }
  });
});
