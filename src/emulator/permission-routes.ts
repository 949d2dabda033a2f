/**
 * Workspace and organization permissions (profile v1):
 * - `POST /api/v1/actions/workspaces/{workspaceId}/managePermissions` sets, for each assignee it
 *   lists, that assignee's permissions and hierarchy permissions on the workspace to the lists
 *   sent (an empty or missing list removes them); assignees it does not list keep theirs. 204.
 * - `GET|PUT /api/v1/layout/workspaces/{workspaceId}/permissions`: every direct grant on the
 *   workspace in declarative form; PUT replaces all of them, every assignee's. 200 / 204.
 * - `POST /api/v1/actions/organization/managePermissions`: the same as the workspace form, for
 *   the organization's permissions (MANAGE, SELF_CREATE_TOKEN). 204.
 * - `GET|PUT /api/v1/layout/organization/permissions`: every organization grant; PUT replaces all.
 * A workspace that does not exist answers 404; a body naming a user or group that does not exist
 * answers 400 and changes nothing.
 */
import { permissionSet, type Assignee, assigneeKey } from "../permissions.js";
import { JSON_TYPE, ProblemError, type Reply } from "./http-util.js";
import {
  declarative,
  organizationAssignments,
  organizationPermissions,
  workspaceAssignments,
  workspacePermissions,
} from "./permission-body.js";
import type { RouteContext } from "./route-context.js";

const json = (status: number, body?: unknown): Reply => ({ status, body, contentType: JSON_TYPE });

function notAllowed(ctx: RouteContext, allowed: string, what: string): never {
  throw new ProblemError(405, `${ctx.method} is not allowed on ${what} (${allowed})`);
}

export function existingWorkspace(ctx: RouteContext, id: string | undefined): string {
  if (id === undefined || !ctx.store.access.workspaces.has(id))
    throw new ProblemError(404, `workspace ${String(id)} not found`);
  return id;
}

/** `POST .../workspaces/{id}/managePermissions`. */
export function handleManageWorkspace(ctx: RouteContext): Reply {
  if (ctx.method !== "POST") notAllowed(ctx, "POST", "managePermissions");
  const ws = existingWorkspace(ctx, ctx.param);
  // Checked whole before anything changes: a bad item leaves the workspace as it was.
  const items = workspaceAssignments(ctx.store, ctx.body(JSON_TYPE));
  for (const { assignee, ...grant } of items) ctx.store.access.setGrant(ws, assignee, grant);
  return { status: 204 };
}

/** `GET|PUT /api/v1/layout/workspaces/{id}/permissions`. */
export function handleWorkspaceLayout(ctx: RouteContext): Reply {
  const ws = existingWorkspace(ctx, ctx.param);
  const { access } = ctx.store;
  if (ctx.method === "GET") {
    const grants = access.grantsOn(ws);
    const entries = (pick: "permissions" | "hierarchy") =>
      grants.flatMap((g) => g[pick].map((name) => ({ name, assignee: { ...g.assignee } })));
    return json(200, { permissions: entries("permissions"), hierarchyPermissions: entries("hierarchy") });
  }
  if (ctx.method !== "PUT") notAllowed(ctx, "GET, PUT", "the workspace's permissions");
  const body = ctx.body(JSON_TYPE);
  const own = declarative(ctx.store, field(body, "permissions"), "permissions", workspacePermissions);
  const below = declarative(
    ctx.store,
    field(body, "hierarchyPermissions"),
    "hierarchyPermissions",
    workspacePermissions,
  );
  const wanted = new Map<string, { assignee: Assignee; permissions: string[]; hierarchy: string[] }>();
  const entry = (a: Assignee) =>
    wanted.get(assigneeKey(a)) ??
    wanted.set(assigneeKey(a), { assignee: a, permissions: [], hierarchy: [] }).get(assigneeKey(a))!;
  for (const p of own) entry(p.assignee).permissions.push(p.name);
  for (const p of below) entry(p.assignee).hierarchy.push(p.name);
  for (const g of access.grantsOn(ws)) access.setGrant(ws, g.assignee, { permissions: [], hierarchy: [] });
  for (const w of wanted.values())
    access.setGrant(ws, w.assignee, {
      permissions: workspacePermissions(w.permissions, "permissions"),
      hierarchy: workspacePermissions(w.hierarchy, "hierarchyPermissions"),
    });
  return { status: 204 };
}

function field(body: unknown, name: string): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new ProblemError(400, "body: must be an object with permissions and hierarchyPermissions");
  for (const k of Object.keys(body))
    if (k !== "permissions" && k !== "hierarchyPermissions")
      throw new ProblemError(400, `body.${k}: unknown member (known: permissions, hierarchyPermissions)`);
  return (body as Record<string, unknown>)[name];
}

/** `POST /api/v1/actions/organization/managePermissions`. */
export function handleManageOrganization(ctx: RouteContext): Reply {
  if (ctx.method !== "POST") notAllowed(ctx, "POST", "managePermissions");
  const items = organizationAssignments(ctx.store, ctx.body(JSON_TYPE));
  for (const { assignee, permissions } of items) ctx.store.access.setOrganization(assignee, permissions);
  return { status: 204 };
}

/** `GET|PUT /api/v1/layout/organization/permissions`. */
export function handleOrganizationLayout(ctx: RouteContext): Reply {
  const { access } = ctx.store;
  if (ctx.method === "GET")
    return json(
      200,
      access
        .organizationGrants()
        .flatMap((o) => o.permissions.map((name) => ({ name, assignee: { ...o.assignee } }))),
    );
  if (ctx.method !== "PUT") notAllowed(ctx, "GET, PUT", "the organization's permissions");
  const items = declarative(ctx.store, ctx.body(JSON_TYPE), "body", organizationPermissions);
  const wanted = new Map<string, { assignee: Assignee; names: string[] }>();
  for (const p of items) {
    const key = assigneeKey(p.assignee);
    (wanted.get(key) ?? wanted.set(key, { assignee: p.assignee, names: [] }).get(key)!).names.push(p.name);
  }
  for (const o of access.organizationGrants()) access.setOrganization(o.assignee, []);
  for (const w of wanted.values())
    access.setOrganization(w.assignee, organizationPermissions(permissionSet(w.names), "body"));
  return { status: 204 };
}
