/**
 * Workspaces and permissions of the emulator, over a real socket: every request body validates
 * against the official request schema and every answer against the official response schema.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator/index.js";
import { validateAgainst } from "../helpers/openapi.js";
import { call, type CallOptions } from "./http.js";

const JSON_TYPE = "application/json";
const json = (body: unknown): CallOptions => ({ body, contentType: JSON_TYPE });
const group = (id: string) => ({ id, type: "userGroup" });
const user = (id: string) => ({ id, type: "user" });

/** Each item of a request array against its official item schema. */
function validItems(schema: string, body: unknown[]): string[] {
  return body.flatMap((item) => validateAgainst("metadata", schema, item));
}

let emu: EmulatorHandle;
beforeEach(async () => {
  emu = await startEmulator({
    seed: {
      groups: [{ id: "sales", name: "Sales" }, { id: "finance" }, { id: "other" }],
      mappings: [{ id: "jane", email: "jane@x.com", firstname: "Jane", groups: ["sales"] }],
      workspaces: [
        { id: "root", name: "Root" },
        {
          id: "emea",
          name: "EMEA",
          parent: "root",
          permissions: [
            { userGroup: "sales", permissions: ["VIEW", "EXPORT"] },
            { userGroup: "other", permissions: ["ANALYZE"], hierarchy: ["VIEW"] },
          ],
        },
      ],
      organizationPermissions: [{ userGroup: "other", permissions: ["SELF_CREATE_TOKEN"] }],
    },
  });
});
afterEach(() => emu.close());

describe("workspaces", () => {
  it("lists the seeded hierarchy as JsonApiWorkspaceOutList, parents included", async () => {
    const res = await call(
      emu,
      "GET",
      "/api/v1/entities/workspaces?include=parent&metaInclude=page&size=1&page=1",
    );
    expect(res.status).toBe(200);
    expect(validateAgainst("metadata", "JsonApiWorkspaceOutList", res.json)).toEqual([]);
    expect(res.json.data).toEqual([
      expect.objectContaining({ id: "root", type: "workspace", attributes: { name: "Root" } }),
    ]);
    const first = await call(emu, "GET", "/api/v1/entities/workspaces?include=parent&size=1&page=0");
    expect(first.json.data[0].relationships.parent.data).toEqual({ id: "root", type: "workspace" });
    expect(first.json.included.map((w: { id: string }) => w.id)).toEqual(["root"]);
    expect(res.json.meta.page).toEqual({ number: 1, size: 1, totalElements: 2, totalPages: 2 });
    const one = await call(emu, "GET", "/api/v1/entities/workspaces/emea");
    expect(validateAgainst("metadata", "JsonApiWorkspaceOutDocument", one.json)).toEqual([]);
    expect((await call(emu, "GET", "/api/v1/entities/workspaces/nope")).status).toBe(404);
    expect((await call(emu, "DELETE", "/api/v1/entities/workspaces/emea")).status).toBe(405);
  });
});

describe("workspace permissions", () => {
  it("serves the declarative layout of a workspace", async () => {
    const res = await call(emu, "GET", "/api/v1/layout/workspaces/emea/permissions");
    expect(res.status).toBe(200);
    expect(validateAgainst("metadata", "DeclarativeWorkspacePermissions", res.json)).toEqual([]);
    expect(res.json).toEqual({
      permissions: [
        { name: "ANALYZE", assignee: group("other") },
        { name: "EXPORT", assignee: group("sales") },
        { name: "VIEW", assignee: group("sales") },
      ],
      hierarchyPermissions: [{ name: "VIEW", assignee: group("other") }],
    });
    expect((await call(emu, "GET", "/api/v1/layout/workspaces/nope/permissions")).status).toBe(404);
  });

  it("managePermissions sets the listed assignees' grants and leaves the others alone", async () => {
    const body = [
      { assigneeIdentifier: group("sales"), permissions: ["VIEW"], hierarchyPermissions: [] },
      { assigneeIdentifier: group("finance"), permissions: ["ANALYZE"], hierarchyPermissions: ["VIEW"] },
      { assigneeIdentifier: user("jane"), permissions: ["EXPORT"] },
    ];
    expect(validItems("WorkspacePermissionAssignment", body)).toEqual([]);
    const res = await call(emu, "POST", "/api/v1/actions/workspaces/emea/managePermissions", json(body));
    expect(res.status).toBe(204);
    const ws = emu.state().workspaces!.find((w) => w.id === "emea")!;
    expect(ws.permissions).toEqual([
      { user: "jane", permissions: ["EXPORT"], hierarchy: [] },
      { userGroup: "finance", permissions: ["ANALYZE"], hierarchy: ["VIEW"] },
      { userGroup: "other", permissions: ["ANALYZE"], hierarchy: ["VIEW"] },
      { userGroup: "sales", permissions: ["VIEW"], hierarchy: [] },
    ]);
    // Empty lists remove the assignee's grant.
    const revoke = [{ assigneeIdentifier: group("sales"), permissions: [], hierarchyPermissions: [] }];
    await call(emu, "POST", "/api/v1/actions/workspaces/emea/managePermissions", json(revoke));
    const after = await call(emu, "GET", "/api/v1/layout/workspaces/emea/permissions");
    expect(after.json.permissions.some((p: { assignee: { id: string } }) => p.assignee.id === "sales")).toBe(
      false,
    );
  });

  it("refuses what the real service would not take, changing nothing", async () => {
    const before = emu.state();
    const cases: Array<[unknown, RegExp]> = [
      [[{ assigneeIdentifier: group("nobody"), permissions: ["VIEW"] }], /userGroup nobody does not exist/],
      [
        [{ assigneeIdentifier: group("sales"), permissions: ["READ"] }],
        /\[0\]\.permissions\[0\]: must be one of/,
      ],
      [[{ assigneeIdentifier: { id: "sales", type: "group" } }], /type: must be "user" or "userGroup"/],
      [[{ assignee: group("sales") }], /\[0\]\.assignee: unknown member/],
      [{ assigneeIdentifier: group("sales") }, /body: must be an array/],
    ];
    for (const [body, message] of cases) {
      const res = await call(emu, "POST", "/api/v1/actions/workspaces/emea/managePermissions", json(body));
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.detail).toMatch(message);
    }
    const wrongType = await call(emu, "POST", "/api/v1/actions/workspaces/emea/managePermissions", {
      body: [],
    });
    expect(wrongType.status).toBe(415);
    expect(emu.state()).toEqual(before);
  });

  it("a layout PUT replaces every assignee's grants on the workspace", async () => {
    const body = { permissions: [{ name: "VIEW", assignee: group("finance") }], hierarchyPermissions: [] };
    expect(validateAgainst("metadata", "DeclarativeWorkspacePermissions", body)).toEqual([]);
    expect((await call(emu, "PUT", "/api/v1/layout/workspaces/emea/permissions", json(body))).status).toBe(
      204,
    );
    const ws = emu.state().workspaces!.find((w) => w.id === "emea")!;
    expect(ws.permissions).toEqual([{ userGroup: "finance", permissions: ["VIEW"], hierarchy: [] }]);
  });

  it("a deleted group takes its grants with it", async () => {
    await call(emu, "POST", "/api/v1/actions/workspaces/emea/managePermissions", json([]));
    const del = await call(emu, "DELETE", "/api/v1/entities/userGroups/other");
    expect(del.status).toBe(204);
    const layout = await call(emu, "GET", "/api/v1/layout/workspaces/emea/permissions");
    expect(JSON.stringify(layout.json)).not.toContain('"other"');
    expect(emu.state().organizationPermissions).toBeUndefined();
  });
});

describe("user management", () => {
  it("lists groups and users with their direct grants (UserManagementUserGroups / Users)", async () => {
    const groups = await call(emu, "GET", "/api/v1/actions/userManagement/userGroups?page=0&size=2");
    expect(validateAgainst("metadata", "UserManagementUserGroups", groups.json)).toEqual([]);
    expect(groups.json.totalCount).toBe(3);
    expect(groups.json.userGroups.map((g: { id: string }) => g.id)).toEqual(["finance", "other"]);
    expect(groups.json.userGroups[1].workspaces).toEqual([
      { id: "emea", name: "EMEA", permissions: ["ANALYZE"], hierarchyPermissions: ["VIEW"] },
    ]);
    const users = await call(emu, "GET", "/api/v1/actions/userManagement/users?workspace=emea");
    expect(validateAgainst("metadata", "UserManagementUsers", users.json)).toEqual([]);
    expect(users.json).toEqual({ users: [], totalCount: 0 });
    const all = await call(emu, "GET", "/api/v1/actions/userManagement/users?size=1000");
    // The token's owner (admin) is mapped by the emulator too; jane is found by id.
    expect(all.json.users.find((u: { id: string }) => u.id === "jane")).toMatchObject({
      id: "jane",
      name: "Jane",
      userGroups: [{ id: "sales", name: "Sales" }],
    });
  });

  it("reads and sets one assignee's grants, keeping the workspaces it does not list", async () => {
    const body = {
      workspaces: [{ id: "root", permissions: ["VIEW"], hierarchyPermissions: [] }],
      dataSources: [],
    };
    expect(validateAgainst("metadata", "UserManagementPermissionAssignments", body)).toEqual([]);
    const path = "/api/v1/actions/userManagement/userGroups/sales/permissions";
    expect((await call(emu, "POST", path, json(body))).status).toBe(204);
    const res = await call(emu, "GET", path);
    expect(validateAgainst("metadata", "UserManagementPermissionAssignments", res.json)).toEqual([]);
    expect(res.json.workspaces.map((w: { id: string }) => w.id)).toEqual(["emea", "root"]);
    expect((await call(emu, "GET", "/api/v1/actions/userManagement/users/nobody/permissions")).status).toBe(
      404,
    );
  });

  it("assignPermissions adds and revokePermissions removes, for many assignees at once", async () => {
    const body = {
      assignees: [group("sales"), group("finance")],
      workspaces: [{ id: "emea", permissions: ["ANALYZE"], hierarchyPermissions: [] }],
    };
    expect(validateAgainst("metadata", "PermissionsAssignment", body)).toEqual([]);
    expect(
      (await call(emu, "POST", "/api/v1/actions/userManagement/assignPermissions", json(body))).status,
    ).toBe(200);
    let ws = emu.state().workspaces!.find((w) => w.id === "emea")!;
    expect(ws.permissions!.find((p) => p.userGroup === "sales")!.permissions).toEqual([
      "ANALYZE",
      "EXPORT",
      "VIEW",
    ]);
    expect(ws.permissions!.find((p) => p.userGroup === "finance")!.permissions).toEqual(["ANALYZE"]);
    await call(emu, "POST", "/api/v1/actions/userManagement/revokePermissions", json(body));
    ws = emu.state().workspaces!.find((w) => w.id === "emea")!;
    expect(ws.permissions!.find((p) => p.userGroup === "sales")!.permissions).toEqual(["EXPORT", "VIEW"]);
    expect(ws.permissions!.some((p) => p.userGroup === "finance")).toBe(false);
  });
});

describe("organization permissions", () => {
  it("manages and lists them", async () => {
    const body = [{ assigneeIdentifier: group("sales"), permissions: ["SELF_CREATE_TOKEN"] }];
    expect(validItems("OrganizationPermissionAssignment", body)).toEqual([]);
    expect(
      (await call(emu, "POST", "/api/v1/actions/organization/managePermissions", json(body))).status,
    ).toBe(204);
    const res = await call(emu, "GET", "/api/v1/layout/organization/permissions");
    expect(validItems("DeclarativeOrganizationPermission", res.json)).toEqual([]);
    expect(res.json).toEqual([
      { name: "SELF_CREATE_TOKEN", assignee: group("other") },
      { name: "SELF_CREATE_TOKEN", assignee: group("sales") },
    ]);
    const bad = [{ assigneeIdentifier: group("sales"), permissions: ["VIEW"] }];
    expect(
      (await call(emu, "POST", "/api/v1/actions/organization/managePermissions", json(bad))).status,
    ).toBe(400);
  });
});

describe("seed and persistence", () => {
  it("refuses a seed whose workspaces or grants cannot be", async () => {
    const cases: Array<[object, RegExp]> = [
      [{ workspaces: [{ id: "a", parent: "b" }] }, /workspace a has unknown parent b/],
      [
        {
          workspaces: [
            { id: "a", parent: "b" },
            { id: "b", parent: "a" },
          ],
        },
        /parent cycle/,
      ],
      [
        { workspaces: [{ id: "a", permissions: [{ userGroup: "g", permissions: ["VIEW"] }] }] },
        /userGroup g does not exist/,
      ],
      [
        {
          groups: [{ id: "g" }],
          workspaces: [{ id: "a", permissions: [{ userGroup: "g", permissions: ["SEE"] }] }],
        },
        /SEE is not a permission/,
      ],
      [
        { groups: [{ id: "g" }], organizationPermissions: [{ user: "x", userGroup: "g", permissions: [] }] },
        /exactly one of user or userGroup/,
      ],
    ];
    for (const [seed, message] of cases) await expect(startEmulator({ seed })).rejects.toThrow(message);
  });

  it("keeps workspaces and grants across a restart", async () => {
    const { mkdtemp } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const file = join(await mkdtemp(join(tmpdir(), "usersync-perm-")), "store.json");
    const first = await startEmulator({
      seed: { groups: [{ id: "g" }], workspaces: [{ id: "w" }] },
      persistPath: file,
    });
    await call(
      first,
      "POST",
      "/api/v1/actions/workspaces/w/managePermissions",
      json([{ assigneeIdentifier: group("g"), permissions: ["VIEW"] }]),
    );
    await first.close();
    const second = await startEmulator({ persistPath: file });
    try {
      const res = await call(second, "GET", "/api/v1/layout/workspaces/w/permissions");
      expect(res.json.permissions).toEqual([{ name: "VIEW", assignee: group("g") }]);
    } finally {
      await second.close();
    }
  });
});
