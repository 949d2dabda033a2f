/**
 * The permission parts of `/api/v1/actions/userManagement` (profile v1), as the emulator reads
 * the official spec where it is silent:
 * - `GET .../users` and `.../userGroups`: every user (mapping) or group with its direct workspace
 *   grants, `{users|userGroups, totalCount}`, zero-based `page` and `size` (default 20, at most
 *   1000), sorted by id; `name` (case-insensitive part of the id or name), `workspace` (holds a
 *   grant there), `group` (users: a member of it) and `dataSource` (none here) filter.
 * - `GET|POST .../users/{userId}/permissions` and `.../userGroups/{userGroupId}/permissions`: the
 *   assignee's direct grants; POST sets the grant on each workspace it lists and keeps the others. 204.
 * - `POST .../assignPermissions` adds, `.../revokePermissions` removes the listed permissions of
 *   every listed assignee on every listed workspace. 200 with no body.
 * The emulator has no data sources: any data-source permission answers 400.
 */
import type { Assignee, WorkspaceAssignment } from "../permissions.js";
import { isEmptyGrant, minusGrant, unionGrant } from "../permissions.js";
import { JSON_TYPE, ProblemError, type Reply } from "./http-util.js";
import { assignee, list, members, noDataSources, userManagementWorkspaces } from "./permission-body.js";
import type { RouteContext } from "./route-context.js";
import type { Store } from "./store.js";

const json = (status: number, body?: unknown): Reply => ({ status, body, contentType: JSON_TYPE });
const MAX_SIZE = 1000;

function intParam(ctx: RouteContext, name: string, fallback: number, max: number): number {
  const raw = ctx.query.get(name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > max)
    throw new ProblemError(400, `query parameter ${name}=${raw}: must be an integer from 0 to ${max}`);
  return n;
}

function workspacesOut(store: Store, grants: WorkspaceAssignment[]): unknown[] {
  return grants.map((g) => {
    const name = store.access.workspaces.get(g.workspace)?.name;
    return {
      id: g.workspace,
      ...(name !== undefined ? { name } : {}),
      permissions: [...g.permissions],
      hierarchyPermissions: [...g.hierarchy],
    };
  });
}

const isAdmin = (store: Store, a: Assignee): boolean => store.access.organizationOf(a).includes("MANAGE");

function userItem(store: Store, id: string): Record<string, unknown> {
  const m = store.mappings.get(id)!;
  const name = [m.firstname, m.lastname].filter((x) => x !== undefined).join(" ");
  const a: Assignee = { type: "user", id };
  return {
    id,
    ...(name !== "" ? { name } : {}),
    ...(m.email !== undefined ? { email: m.email } : {}),
    organizationAdmin:
      isAdmin(store, a) || m.groups.some((g) => isAdmin(store, { type: "userGroup", id: g })),
    userGroups: [...m.groups].sort().map((g) => {
      const gname = store.groups.get(g)?.name;
      return { id: g, ...(gname !== undefined ? { name: gname } : {}) };
    }),
    workspaces: workspacesOut(store, store.access.grantsOf(a)),
    dataSources: [],
  };
}

function groupItem(store: Store, id: string): Record<string, unknown> {
  const g = store.groups.get(id)!;
  const a: Assignee = { type: "userGroup", id };
  return {
    id,
    ...(g.name !== undefined ? { name: g.name } : {}),
    organizationAdmin: isAdmin(store, a),
    userCount: store.memberCount(id),
    workspaces: workspacesOut(store, store.access.grantsOf(a)),
    dataSources: [],
  };
}

/** `GET .../userManagement/users` or `.../userGroups`. */
export function handleUserManagementList(ctx: RouteContext, type: Assignee["type"]): Reply {
  if (ctx.method !== "GET") throw new ProblemError(405, `${ctx.method} is not allowed here (GET)`);
  const { store } = ctx;
  const page = intParam(ctx, "page", 0, Number.MAX_SAFE_INTEGER);
  const size = intParam(ctx, "size", 20, MAX_SIZE);
  const name = ctx.query.get("name")?.toLowerCase();
  const workspace = ctx.query.get("workspace");
  const group = type === "user" ? ctx.query.get("group") : null;
  const ids = (type === "user" ? store.mappingIds : store.groupIds).all().filter((id) => {
    if (ctx.query.get("dataSource") !== null) return false;
    const label = type === "user" ? store.mappings.get(id)?.email : store.groups.get(id)?.name;
    if (name !== undefined && !`${id} ${label ?? ""}`.toLowerCase().includes(name)) return false;
    if (workspace !== null && isEmptyGrant(store.access.grant(workspace, { type, id }))) return false;
    return group === null || (store.mappings.get(id)?.groups.includes(group) ?? false);
  });
  const items = ids
    .slice(page * size, page * size + size)
    .map((id) => (type === "user" ? userItem(store, id) : groupItem(store, id)));
  return json(200, { [type === "user" ? "users" : "userGroups"]: items, totalCount: ids.length });
}

/** `GET|POST .../userManagement/{users|userGroups}/{id}/permissions`. */
export function handleAssigneePermissions(ctx: RouteContext, type: Assignee["type"]): Reply {
  const { store } = ctx;
  const a: Assignee = { type, id: ctx.param ?? "" };
  if (!(type === "user" ? store.mappings : store.groups).has(a.id))
    throw new ProblemError(404, `${type} ${a.id} not found`);
  if (ctx.method === "GET")
    return json(200, { workspaces: workspacesOut(store, store.access.grantsOf(a)), dataSources: [] });
  if (ctx.method !== "POST") throw new ProblemError(405, `${ctx.method} is not allowed here (GET, POST)`);
  const body = members(
    ctx.body(JSON_TYPE),
    "body",
    ["workspaces", "dataSources"],
    ["workspaces", "dataSources"],
  );
  noDataSources(body.dataSources, "body.dataSources");
  const grants = userManagementWorkspaces(store, body.workspaces, "body.workspaces");
  for (const { workspace, ...grant } of grants) store.access.setGrant(workspace, a, grant);
  return { status: 204 };
}

/** `POST .../userManagement/assignPermissions` (`add`) and `.../revokePermissions`. */
export function handleBulkPermissions(ctx: RouteContext, add: boolean): Reply {
  if (ctx.method !== "POST") throw new ProblemError(405, `${ctx.method} is not allowed here (POST)`);
  const { store } = ctx;
  const body = members(
    ctx.body(JSON_TYPE),
    "body",
    ["assignees", "workspaces", "dataSources"],
    ["assignees"],
  );
  const assignees = list(body.assignees, "body.assignees").map((v, i) =>
    assignee(store, v, `body.assignees[${i}]`),
  );
  noDataSources(body.dataSources, "body.dataSources");
  const grants =
    body.workspaces === undefined ? [] : userManagementWorkspaces(store, body.workspaces, "body.workspaces");
  for (const a of assignees)
    for (const { workspace, ...grant } of grants) {
      const have = store.access.grant(workspace, a);
      store.access.setGrant(workspace, a, add ? unionGrant(have, grant) : minusGrant(have, grant));
    }
  return { status: 200 };
}
