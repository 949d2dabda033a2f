/**
 * Request bodies of the permission endpoints, checked against the official schemas
 * (`AssigneeIdentifier`, `WorkspacePermissionAssignment`, `UserManagementPermissionAssignments`,
 * `PermissionsAssignment`, `OrganizationPermissionAssignment`, the declarative layouts), stricter
 * where a client bug would otherwise pass: unknown members are refused, every named user, group
 * and workspace must exist. Every message names the member (`[2].permissions[0]`).
 */
import {
  isOrganizationPermission,
  isWorkspacePermission,
  permissionSet,
  type Assignee,
  type OrganizationPermission,
  type WorkspaceGrant,
  type WorkspacePermission,
} from "../permissions.js";
import { ProblemError, isObject } from "./http-util.js";
import { ID_PATTERN } from "./jsonapi.js";
import type { Store } from "./store.js";

const bad = (where: string, message: string): ProblemError => new ProblemError(400, `${where}: ${message}`);

/** The object's members are among `allowed`; `required` ones are present. */
export function members(
  value: unknown,
  where: string,
  allowed: readonly string[],
  required: readonly string[],
) {
  if (!isObject(value))
    throw bad(where, `must be an object with ${required.join(", ") || allowed.join(", ")}`);
  for (const k of Object.keys(value))
    if (!allowed.includes(k)) throw bad(`${where}.${k}`, `unknown member (known: ${allowed.join(", ")})`);
  for (const k of required) if (value[k] === undefined) throw bad(`${where}.${k}`, "is required");
  return value;
}

export function list(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw bad(where, "must be an array");
  return value;
}

/** An `AssigneeIdentifier` naming a user or group that exists. */
export function assignee(store: Store, value: unknown, where: string): Assignee {
  const v = members(value, where, ["id", "type"], ["id", "type"]);
  if (v.type !== "user" && v.type !== "userGroup")
    throw bad(`${where}.type`, 'must be "user" or "userGroup"');
  if (typeof v.id !== "string" || !ID_PATTERN.test(v.id)) throw bad(`${where}.id`, "must be a valid id");
  const a: Assignee = { type: v.type, id: v.id };
  if (!assigneeExists(store, a)) throw bad(where, `${a.type} ${a.id} does not exist`);
  return a;
}

export const assigneeExists = (store: Store, a: Assignee): boolean =>
  (a.type === "user" ? store.mappings : store.groups).has(a.id);

function permissionList<P extends string>(
  value: unknown,
  where: string,
  is: (v: string) => v is P,
  names: string,
): P[] {
  if (value === undefined) return [];
  return permissionSet(
    list(value, where).map((p, i) => {
      if (typeof p !== "string" || !is(p)) throw bad(`${where}[${i}]`, `must be one of ${names}`);
      return p;
    }),
  );
}

const WORKSPACE_NAMES =
  "MANAGE, ANALYZE, EXPORT, EXPORT_TABULAR, EXPORT_PDF, CREATE_AUTOMATION, USE_AI_ASSISTANT, CREATE_FILTER_VIEW, VIEW";
export const workspacePermissions = (value: unknown, where: string): WorkspacePermission[] =>
  permissionList(value, where, isWorkspacePermission, WORKSPACE_NAMES);
export const organizationPermissions = (value: unknown, where: string): OrganizationPermission[] =>
  permissionList(value, where, isOrganizationPermission, "MANAGE, SELF_CREATE_TOKEN");

/** The body of `managePermissions` of a workspace: `[{assigneeIdentifier, permissions?, hierarchyPermissions?}]`. */
export function workspaceAssignments(
  store: Store,
  body: unknown,
): Array<{ assignee: Assignee } & WorkspaceGrant> {
  return list(body, "body").map((item, i) => {
    const v = members(
      item,
      `[${i}]`,
      ["assigneeIdentifier", "permissions", "hierarchyPermissions"],
      ["assigneeIdentifier"],
    );
    return {
      assignee: assignee(store, v.assigneeIdentifier, `[${i}].assigneeIdentifier`),
      permissions: workspacePermissions(v.permissions, `[${i}].permissions`),
      hierarchy: workspacePermissions(v.hierarchyPermissions, `[${i}].hierarchyPermissions`),
    };
  });
}

/** `UserManagementWorkspacePermissionAssignment`s: `[{id, permissions, hierarchyPermissions}]` of existing workspaces. */
export function userManagementWorkspaces(
  store: Store,
  value: unknown,
  where: string,
): Array<{ workspace: string } & WorkspaceGrant> {
  return list(value, where).map((item, i) => {
    const at = `${where}[${i}]`;
    const v = members(
      item,
      at,
      ["id", "name", "permissions", "hierarchyPermissions"],
      ["id", "permissions", "hierarchyPermissions"],
    );
    if (typeof v.id !== "string" || !store.access.workspaces.has(v.id))
      throw bad(`${at}.id`, `workspace ${String(v.id)} does not exist`);
    return {
      workspace: v.id,
      permissions: workspacePermissions(v.permissions, `${at}.permissions`),
      hierarchy: workspacePermissions(v.hierarchyPermissions, `${at}.hierarchyPermissions`),
    };
  });
}

/** The emulator has no data sources: a data-source permission names one that does not exist. */
export function noDataSources(value: unknown, where: string): void {
  const items = value === undefined ? [] : list(value, where);
  if (items.length > 0) throw bad(`${where}[0]`, "this emulator has no data sources");
}

/** `[{assigneeIdentifier, permissions}]` of the organization's managePermissions. */
export function organizationAssignments(store: Store, body: unknown) {
  return list(body, "body").map((item, i) => {
    const v = members(
      item,
      `[${i}]`,
      ["assigneeIdentifier", "permissions"],
      ["assigneeIdentifier", "permissions"],
    );
    return {
      assignee: assignee(store, v.assigneeIdentifier, `[${i}].assigneeIdentifier`),
      permissions: organizationPermissions(v.permissions, `[${i}].permissions`),
    };
  });
}

/** A declarative list `[{name, assignee}]` (layout PUT), as names grouped by assignee. */
export function declarative<P extends string>(
  store: Store,
  value: unknown,
  where: string,
  read: (v: unknown, where: string) => P[],
): Array<{ assignee: Assignee; name: P }> {
  if (value === undefined) return [];
  return list(value, where).map((item, i) => {
    const v = members(item, `${where}[${i}]`, ["name", "assignee"], ["name", "assignee"]);
    const [name] = read([v.name], `${where}[${i}].name`);
    return { assignee: assignee(store, v.assignee, `${where}[${i}].assignee`), name: name! };
  });
}
