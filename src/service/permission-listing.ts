/**
 * Listing the permissions a run needs in the fewest requests. Two ways read the same grants:
 * - by workspace: one `GET /api/v1/layout/workspaces/{id}/permissions` per workspace in scope,
 *   which gives every user's and group's grant there;
 * - by assignee: the userManagement listing of every group (`GET .../userManagement/userGroups`,
 *   one request per page) with each group's grants on every workspace, plus the users' grants:
 *   one `GET .../users/{id}/permissions` per user whose grants the run manages, or the users
 *   listing page by page when every user's are wanted (export).
 * Both are counted before either is sent, from the workspace, group and user counts the listing
 * already has, and the cheaper one is taken (the declarative layout when they cost the same).
 * Both give the same `ActualPermissions`: the grants of every group and of the users asked for,
 * on the workspaces in scope (a test compares them).
 */
import {
  compareIds as cmp,
  type ActualPermissions,
  type Workspace,
  type WorkspaceAssignment,
} from "../permissions.js";
import type { PermissionsClient } from "./types.js";

export interface PermissionListing {
  /** Whether a workspace's grants are read (`permissions.workspaces`). */
  inScope: (workspaceId: string) => boolean;
  /** Users whose grants are read: every user, or these ids. Groups' grants are always read. */
  users: "all" | readonly string[];
  /** Read the organization's grants too (one request). */
  organization: boolean;
  /** Page size of the listings. */
  pageSize: number;
}

export type ListingWay = "byWorkspace" | "byAssignee";

/** Requests each way costs for an organization of these sizes. */
export function listingCost(
  listing: PermissionListing,
  sizes: { workspacesInScope: number; groups: number; users: number },
): Record<ListingWay, number> {
  const pages = (n: number): number => Math.max(1, Math.ceil(n / listing.pageSize));
  const users = listing.users === "all" ? pages(sizes.users) : listing.users.length;
  return { byWorkspace: sizes.workspacesInScope, byAssignee: pages(sizes.groups) + users };
}

export async function listPermissions(
  api: PermissionsClient,
  listing: PermissionListing,
  known: { workspaces: Workspace[]; groups: number; users: number },
): Promise<ActualPermissions & { via: ListingWay }> {
  const inScope = known.workspaces.filter((w) => listing.inScope(w.id)).map((w) => w.id);
  const cost = listingCost(listing, {
    workspacesInScope: inScope.length,
    groups: known.groups,
    users: known.users,
  });
  const via: ListingWay = cost.byAssignee < cost.byWorkspace ? "byAssignee" : "byWorkspace";
  const [assignments, organization] = await Promise.all([
    via === "byWorkspace" ? byWorkspace(api, listing, inScope) : byAssignee(api, listing, new Set(inScope)),
    listing.organization ? api.getOrganizationPermissions() : undefined,
  ]);
  return {
    workspaces: known.workspaces,
    assignments: sortAssignments(assignments),
    ...(organization !== undefined ? { organization } : {}),
    via,
  };
}

async function byWorkspace(
  api: PermissionsClient,
  listing: PermissionListing,
  workspaces: readonly string[],
): Promise<WorkspaceAssignment[]> {
  const users = listing.users === "all" ? undefined : new Set(listing.users);
  const all = (await Promise.all(workspaces.map((w) => api.getWorkspacePermissions(w)))).flat();
  return all.filter(
    (a) => a.assignee.type === "userGroup" || users === undefined || users.has(a.assignee.id),
  );
}

async function byAssignee(
  api: PermissionsClient,
  listing: PermissionListing,
  workspaces: ReadonlySet<string>,
): Promise<WorkspaceAssignment[]> {
  const [groups, users] = await Promise.all([
    api.listAssigneePermissions("userGroup"),
    listing.users === "all"
      ? api.listAssigneePermissions("user")
      : Promise.all(listing.users.map((id) => api.getUserPermissions(id))).then((l) => l.flat()),
  ]);
  return [...groups, ...users].filter((a) => workspaces.has(a.workspace));
}

function sortAssignments(list: WorkspaceAssignment[]): WorkspaceAssignment[] {
  return list.sort(
    (a, b) =>
      cmp(a.workspace, b.workspace) ||
      cmp(a.assignee.type, b.assignee.type) ||
      cmp(a.assignee.id, b.assignee.id),
  );
}
