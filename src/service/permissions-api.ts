/**
 * The permission endpoints of the current API (profile v1), as calls over the transport. Each
 * answer is checked against its schema (permission-answers.ts) and read by one decoder below
 * (`decode…`): a broken answer (an unknown permission, a missing id, pages that do not add up) is
 * an AnswerError, retried then fatal before any write, never a grant dropped or guessed.
 */
import type { z } from "zod";
import {
  assigneeKey,
  grantOf,
  permissionSet,
  type Assignee,
  type OrganizationAssignment,
  type Workspace,
  type WorkspaceAssignment,
  type WorkspaceGrant,
  type WorkspacePermission,
} from "../permissions.js";
import { ConfigError } from "../errors.js";
import { JSON_MEDIA, isResource, type Resource } from "./codec.js";
import { listAllPages } from "./paging.js";
import { listAssignees } from "./assignee-listing.js";
import {
  ORGANIZATION_LAYOUT_ANSWER,
  USER_PERMISSIONS_ANSWER,
  WORKSPACE_LAYOUT_ANSWER,
  WORKSPACE_RESOURCE,
  type AssigneeItem,
} from "./permission-answers.js";
import type { Transport } from "./transport.js";
import type { CallOptions, PermissionsClient } from "./types.js";

const seg = encodeURIComponent;
export const PERMISSION_PATHS = {
  workspaces: "/api/v1/entities/workspaces",
  workspaceLayout: (ws: string) => `/api/v1/layout/workspaces/${seg(ws)}/permissions`,
  manageWorkspace: (ws: string) => `/api/v1/actions/workspaces/${seg(ws)}/managePermissions`,
  groups: "/api/v1/actions/userManagement/userGroups",
  users: "/api/v1/actions/userManagement/users",
  userPermissions: (id: string) => `/api/v1/actions/userManagement/users/${seg(id)}/permissions`,
  organizationLayout: "/api/v1/layout/organization/permissions",
  manageOrganization: "/api/v1/actions/organization/managePermissions",
} as const;

export function decodeWorkspace(r: Resource): Workspace {
  const name = r.attributes?.["name"];
  const parent = r.relationships?.["parent"]?.data;
  return {
    id: r.id,
    ...(typeof name === "string" ? { name } : {}),
    ...(isResource(parent) ? { parent: parent.id } : {}),
  };
}

/** `DeclarativeWorkspacePermissions` (checked) → one assignment per assignee. */
export function decodeWorkspaceLayout(
  workspace: string,
  json: z.output<typeof WORKSPACE_LAYOUT_ANSWER>,
): WorkspaceAssignment[] {
  const by = new Map<
    string,
    { assignee: Assignee; permissions: WorkspacePermission[]; hierarchy: WorkspacePermission[] }
  >();
  const add = (list: typeof json.permissions, into: "permissions" | "hierarchy"): void => {
    for (const p of list ?? []) {
      const a: Assignee = { type: p.assignee.type, id: p.assignee.id };
      const key = assigneeKey(a);
      const entry = by.get(key) ?? by.set(key, { assignee: a, permissions: [], hierarchy: [] }).get(key)!;
      entry[into].push(p.name);
    }
  };
  add(json.permissions, "permissions");
  add(json.hierarchyPermissions, "hierarchy");
  return [...by.values()].map((e) => ({
    workspace,
    assignee: e.assignee,
    ...grantOf({ permissions: permissionSet(e.permissions), hierarchy: permissionSet(e.hierarchy) }),
  }));
}

/** `UserManagementWorkspacePermissionAssignment[]` (checked) of one assignee. */
export function decodeAssigneeWorkspaces(
  assignee: Assignee,
  list: AssigneeItem["workspaces"],
): WorkspaceAssignment[] {
  return list.flatMap((w) => {
    const grant = {
      permissions: permissionSet(w.permissions),
      hierarchy: permissionSet(w.hierarchyPermissions),
    };
    return grant.permissions.length + grant.hierarchy.length > 0
      ? [{ workspace: w.id, assignee, ...grant }]
      : [];
  });
}

/** `DeclarativeOrganizationPermission[]` (checked) → one assignment per assignee. */
export function decodeOrganizationLayout(
  json: z.output<typeof ORGANIZATION_LAYOUT_ANSWER>,
): OrganizationAssignment[] {
  const by = new Map<string, OrganizationAssignment>();
  for (const p of json) {
    const a: Assignee = { type: p.assignee.type, id: p.assignee.id };
    const key = assigneeKey(a);
    const entry = by.get(key) ?? by.set(key, { assignee: a, permissions: [] }).get(key)!;
    entry.permissions = permissionSet([...entry.permissions, p.name]);
  }
  return [...by.values()];
}

export class PermissionsApi implements PermissionsClient {
  constructor(private readonly o: { transport: Transport; pageSize: number }) {}

  async listWorkspaces(): Promise<Workspace[]> {
    const list = await listAllPages({
      transport: this.o.transport,
      path: PERMISSION_PATHS.workspaces,
      pageSize: this.o.pageSize,
      include: "parent",
      item: WORKSPACE_RESOURCE,
    });
    return list.map(decodeWorkspace);
  }

  async getWorkspacePermissions(workspace: string): Promise<WorkspaceAssignment[]> {
    const path = PERMISSION_PATHS.workspaceLayout(workspace);
    const { json } = await this.o.transport.request({
      method: "GET",
      path,
      mediaType: JSON_MEDIA,
      answer: WORKSPACE_LAYOUT_ANSWER,
    });
    return decodeWorkspaceLayout(workspace, json);
  }

  /** One user's direct grants; none for a user the service does not know (404). */
  async getUserPermissions(userId: string): Promise<WorkspaceAssignment[]> {
    const path = PERMISSION_PATHS.userPermissions(userId);
    const { status, json } = await this.o.transport.request({
      method: "GET",
      path,
      mediaType: JSON_MEDIA,
      accept: [404],
      answer: USER_PERMISSIONS_ANSWER,
    });
    return status === 404 ? [] : decodeAssigneeWorkspaces({ type: "user", id: userId }, json.workspaces);
  }

  /** Every group's (or user's) direct grants, from the whole paged listing (assignee-listing.ts). */
  async listAssigneePermissions(type: Assignee["type"]): Promise<WorkspaceAssignment[]> {
    const items = await listAssignees({
      transport: this.o.transport,
      path: type === "user" ? PERMISSION_PATHS.users : PERMISSION_PATHS.groups,
      member: type === "user" ? "users" : "userGroups",
      pageSize: this.o.pageSize,
    });
    return items.flatMap((item) => decodeAssigneeWorkspaces({ type, id: item.id }, item.workspaces));
  }

  /** Sets each listed assignee's grant on the workspace to exactly the one given (empty: none). */
  async manageWorkspacePermissions(
    workspace: string,
    grants: ReadonlyArray<{ assignee: Assignee } & WorkspaceGrant>,
    call?: CallOptions,
  ): Promise<void> {
    const body = grants.map((g) => ({
      assigneeIdentifier: { id: g.assignee.id, type: g.assignee.type },
      permissions: [...g.permissions],
      hierarchyPermissions: [...g.hierarchy],
    }));
    await this.manage(PERMISSION_PATHS.manageWorkspace(workspace), body, call);
  }

  async getOrganizationPermissions(): Promise<OrganizationAssignment[]> {
    const path = PERMISSION_PATHS.organizationLayout;
    const { json } = await this.o.transport.request({
      method: "GET",
      path,
      mediaType: JSON_MEDIA,
      answer: ORGANIZATION_LAYOUT_ANSWER,
    });
    return decodeOrganizationLayout(json);
  }

  /** Sets each listed assignee's organization permissions to exactly the ones given. */
  async manageOrganizationPermissions(
    grants: readonly OrganizationAssignment[],
    call?: CallOptions,
  ): Promise<void> {
    const body = grants.map((g) => ({
      assigneeIdentifier: { id: g.assignee.id, type: g.assignee.type },
      permissions: [...g.permissions],
    }));
    await this.manage(PERMISSION_PATHS.manageOrganization, body, call);
  }

  /** A managePermissions: its body sets absolute values, so it is idempotent (retried like a PUT). */
  private async manage(path: string, body: unknown, call: CallOptions | undefined): Promise<void> {
    await this.o.transport.request({
      method: "POST",
      path,
      mediaType: JSON_MEDIA,
      body,
      idempotent: true,
      call,
    });
  }
}

/** The permissions of a profile without them (legacy): every call says so. */
export function noPermissionsApi(profile: string): PermissionsClient {
  const refuse = (): Promise<never> =>
    Promise.reject(
      new ConfigError({
        message: `workspace and organization permissions need the current API (profile v1); this service speaks ${profile}: leave permissions out of the desired state`,
      }),
    );
  return {
    listWorkspaces: refuse,
    getWorkspacePermissions: refuse,
    listAssigneePermissions: refuse,
    getUserPermissions: refuse,
    manageWorkspacePermissions: refuse,
    getOrganizationPermissions: refuse,
    manageOrganizationPermissions: refuse,
  };
}
