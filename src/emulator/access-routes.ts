/**
 * The routes of workspaces and permissions (profile v1), as entries of the server's route table.
 * Each pattern names one endpoint exactly, so other `/actions/userManagement/...` routes (group
 * membership) can sit beside them.
 */
import type { Reply } from "./http-util.js";
import {
  handleManageOrganization,
  handleManageWorkspace,
  handleOrganizationLayout,
  handleWorkspaceLayout,
} from "./permission-routes.js";
import type { RouteContext } from "./route-context.js";
import {
  handleAssigneePermissions,
  handleBulkPermissions,
  handleUserManagementList,
} from "./user-management-routes.js";
import { handleWorkspaces } from "./workspace-routes.js";
import { handleUserDataFilters } from "./data-filter-routes.js";

interface AccessRoute {
  profile: "v1";
  pattern: RegExp;
  param?: number;
  handler: (match: RegExpExecArray) => (ctx: RouteContext) => Reply;
}

/** A workspace id from the path; one that is not valid percent-encoding names no workspace (404). */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const assigneeType = (m: RegExpExecArray): "user" | "userGroup" => (m[1] === "users" ? "user" : "userGroup");

export const PERMISSION_ROUTES: AccessRoute[] = [
  {
    profile: "v1",
    pattern: /^\/api\/v1\/entities\/workspaces(?:\/([^/]+))?$/,
    param: 1,
    handler: () => handleWorkspaces,
  },
  {
    profile: "v1",
    pattern: /^\/api\/v1\/entities\/workspaces\/([^/]+)\/userDataFilters(?:\/([^/]+))?$/,
    param: 2,
    handler: (m) => (ctx) => handleUserDataFilters(ctx, safeDecode(m[1] ?? "")),
  },
  {
    profile: "v1",
    pattern: /^\/api\/v1\/layout\/workspaces\/([^/]+)\/permissions$/,
    param: 1,
    handler: () => handleWorkspaceLayout,
  },
  {
    profile: "v1",
    pattern: /^\/api\/v1\/actions\/workspaces\/([^/]+)\/managePermissions$/,
    param: 1,
    handler: () => handleManageWorkspace,
  },
  {
    profile: "v1",
    pattern: /^\/api\/v1\/layout\/organization\/permissions$/,
    handler: () => handleOrganizationLayout,
  },
  {
    profile: "v1",
    pattern: /^\/api\/v1\/actions\/organization\/managePermissions$/,
    handler: () => handleManageOrganization,
  },
  {
    profile: "v1",
    pattern: /^\/api\/v1\/actions\/userManagement\/(users|userGroups)$/,
    handler: (m) => (ctx) => handleUserManagementList(ctx, assigneeType(m)),
  },
  {
    profile: "v1",
    pattern: /^\/api\/v1\/actions\/userManagement\/(users|userGroups)\/([^/]+)\/permissions$/,
    param: 2,
    handler: (m) => (ctx) => handleAssigneePermissions(ctx, assigneeType(m)),
  },
  {
    profile: "v1",
    pattern: /^\/api\/v1\/actions\/userManagement\/(assign|revoke)Permissions$/,
    handler: (m) => (ctx) => handleBulkPermissions(ctx, m[1] === "assign"),
  },
];
