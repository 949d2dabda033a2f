/**
 * The permission endpoints of the current API (profile v1), as calls over the transport. Each
 * answer is read by one decoder below (`decode…`): what the rest of the program believes of an
 * answer comes from there, so a schema check of the answer slots in beside it. A member the
 * decoder does not understand (an unknown permission, a missing id) is dropped, never guessed.
 */
import {
  grantOf,
  isOrganizationPermission,
  isWorkspacePermission,
  permissionSet,
  type Assignee,
  type OrganizationAssignment,
  type Workspace,
  type WorkspaceAssignment,
  type WorkspaceGrant,
} from "../permissions.js";
import { ConfigError } from "../errors.js";
import { JSON_MEDIA, isResource, type Resource } from "./codec.js";
import { listAllPages } from "./paging.js";
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

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const items = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function decodeAssignee(v: unknown): Assignee | undefined {
  if (!isRecord(v) || typeof v.id !== "string") return undefined;
  return v.type === "user" || v.type === "userGroup" ? { type: v.type, id: v.id } : undefined;
}

const workspacePermissions = (v: unknown) =>
  permissionSet(
    items(v)
      .filter((p): p is string => typeof p === "string")
      .filter(isWorkspacePermission),
  );

export function decodeWorkspace(r: Resource): Workspace {
  const name = r.attributes?.["name"];
  const parent = r.relationships?.["parent"]?.data;
  return {
    id: r.id,
    ...(typeof name === "string" ? { name } : {}),
    ...(isResource(parent) ? { parent: parent.id } : {}),
  };
}

/** `DeclarativeWorkspacePermissions` → one assignment per assignee. */
export function decodeWorkspaceLayout(workspace: string, json: unknown): WorkspaceAssignment[] {
  const body = isRecord(json) ? json : {};
  const by = new Map<string, { assignee: Assignee; permissions: string[]; hierarchy: string[] }>();
  const add = (list: unknown, into: "permissions" | "hierarchy"): void => {
    for (const p of items(list)) {
      const a = isRecord(p) ? decodeAssignee(p.assignee) : undefined;
      if (!a || !isRecord(p) || typeof p.name !== "string") continue;
      const key = `${a.type}/${a.id}`;
      const entry = by.get(key) ?? by.set(key, { assignee: a, permissions: [], hierarchy: [] }).get(key)!;
      entry[into].push(p.name);
    }
  };
  add(body.permissions, "permissions");
  add(body.hierarchyPermissions, "hierarchy");
  return [...by.values()].map((e) => ({
    workspace,
    assignee: e.assignee,
    ...grantOf({
      permissions: workspacePermissions(e.permissions),
      hierarchy: workspacePermissions(e.hierarchy),
    }),
  }));
}

/** `UserManagementWorkspacePermissionAssignment[]` of one assignee. */
export function decodeAssigneeWorkspaces(assignee: Assignee, list: unknown): WorkspaceAssignment[] {
  return items(list).flatMap((w) => {
    if (!isRecord(w) || typeof w.id !== "string") return [];
    const grant = {
      permissions: workspacePermissions(w.permissions),
      hierarchy: workspacePermissions(w.hierarchyPermissions),
    };
    return grant.permissions.length + grant.hierarchy.length > 0
      ? [{ workspace: w.id, assignee, ...grant }]
      : [];
  });
}

/** `DeclarativeOrganizationPermission[]` → one assignment per assignee. */
export function decodeOrganizationLayout(json: unknown): OrganizationAssignment[] {
  const by = new Map<string, OrganizationAssignment>();
  for (const p of items(json)) {
    const a = isRecord(p) ? decodeAssignee(p.assignee) : undefined;
    if (!a || !isRecord(p) || typeof p.name !== "string" || !isOrganizationPermission(p.name)) continue;
    const key = `${a.type}/${a.id}`;
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
    });
    return list.map(decodeWorkspace);
  }

  async getWorkspacePermissions(workspace: string): Promise<WorkspaceAssignment[]> {
    const path = PERMISSION_PATHS.workspaceLayout(workspace);
    const { json } = await this.o.transport.request({ method: "GET", path, mediaType: JSON_MEDIA });
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
    });
    return status === 404
      ? []
      : decodeAssigneeWorkspaces({ type: "user", id: userId }, isRecord(json) ? json.workspaces : []);
  }

  /** Every group's (or user's) direct grants, page by page (`{userGroups|users, totalCount}`). */
  async listAssigneePermissions(type: Assignee["type"]): Promise<WorkspaceAssignment[]> {
    const path = type === "user" ? PERMISSION_PATHS.users : PERMISSION_PATHS.groups;
    const member = type === "user" ? "users" : "userGroups";
    const size = this.o.pageSize;
    const page = async (n: number) => {
      const { json } = await this.o.transport.request({
        method: "GET",
        path: `${path}?page=${n}&size=${size}`,
        mediaType: JSON_MEDIA,
      });
      const body = isRecord(json) ? json : {};
      return {
        list: items(body[member]),
        total: typeof body.totalCount === "number" ? body.totalCount : undefined,
      };
    };
    const first = await page(0);
    const pages = [first.list];
    const count = first.total === undefined ? 1 : Math.ceil(first.total / size);
    pages.push(
      ...(await Promise.all(Array.from({ length: Math.max(0, count - 1) }, (_, i) => page(i + 1)))).map(
        (p) => p.list,
      ),
    );
    const seen = new Set<string>();
    return pages.flat().flatMap((item) => {
      if (!isRecord(item) || typeof item.id !== "string" || seen.has(item.id)) return [];
      seen.add(item.id);
      return decodeAssigneeWorkspaces({ type, id: item.id }, item.workspaces);
    });
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
    const { json } = await this.o.transport.request({ method: "GET", path, mediaType: JSON_MEDIA });
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
