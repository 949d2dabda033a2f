/**
 * The permission vocabulary of the service, as the official OpenAPI names it
 * (`WorkspacePermissionAssignment`, `OrganizationPermissionAssignment`), and the small pure
 * operations on permission sets that the reader, the planner, the client and the emulator share.
 * A set is always kept sorted and without repeats, so two equal sets are equal lists.
 */

export const WORKSPACE_PERMISSIONS = [
  "MANAGE",
  "ANALYZE",
  "EXPORT",
  "EXPORT_TABULAR",
  "EXPORT_PDF",
  "CREATE_AUTOMATION",
  "USE_AI_ASSISTANT",
  "CREATE_FILTER_VIEW",
  "VIEW",
] as const;
export type WorkspacePermission = (typeof WORKSPACE_PERMISSIONS)[number];

export const ORGANIZATION_PERMISSIONS = ["MANAGE", "SELF_CREATE_TOKEN"] as const;
export type OrganizationPermission = (typeof ORGANIZATION_PERMISSIONS)[number];

export type AssigneeType = "user" | "userGroup";

/** Who holds a permission: a user (mapping id) or a user group, as the API's `AssigneeIdentifier`. */
export interface Assignee {
  type: AssigneeType;
  id: string;
}

/** What one assignee holds on one workspace: its own `permissions` and `hierarchy` (on its child workspaces too). */
export interface WorkspaceGrant {
  permissions: WorkspacePermission[];
  hierarchy: WorkspacePermission[];
}

/** One workspace of the organization; `parent` makes the hierarchy. */
export interface Workspace {
  id: string;
  name?: string;
  parent?: string;
}

/** A direct grant on a workspace, as the service reports it. */
export interface WorkspaceAssignment extends WorkspaceGrant {
  workspace: string;
  assignee: Assignee;
}

export interface OrganizationAssignment {
  assignee: Assignee;
  permissions: OrganizationPermission[];
}

/** The permissions part of the actual state (listed only when the config manages permissions). */
export interface ActualPermissions {
  workspaces: Workspace[];
  /** Direct grants on the workspaces that were read (those in scope); a pair not listed holds nothing. */
  assignments: WorkspaceAssignment[];
  /** Organization grants, when they were read. */
  organization?: OrganizationAssignment[];
  /** How the grants were read (for the log): one layout per workspace, or the per-assignee listings. */
  via?: "byWorkspace" | "byAssignee";
}

export const isWorkspacePermission = (v: string): v is WorkspacePermission =>
  (WORKSPACE_PERMISSIONS as readonly string[]).includes(v);
export const isOrganizationPermission = (v: string): v is OrganizationPermission =>
  (ORGANIZATION_PERMISSIONS as readonly string[]).includes(v);

/** `userGroup/sales`, `user/jane`: one string per assignee (ids never hold a `/`). */
export const assigneeKey = (a: Assignee): string => `${a.type}/${a.id}`;

export function parseAssigneeKey(key: string): Assignee | undefined {
  const sep = key.indexOf("/");
  const type = key.slice(0, sep);
  if (type !== "user" && type !== "userGroup") return undefined;
  return { type, id: key.slice(sep + 1) };
}

/** Code-unit order of ids: the same on every machine. */
export const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Sorted, without repeats. */
export function permissionSet<P extends string>(list: Iterable<P>): P[] {
  return [...new Set(list)].sort(compareIds);
}

export const EMPTY_GRANT: Readonly<WorkspaceGrant> = Object.freeze({ permissions: [], hierarchy: [] });

export function grantOf(g: {
  permissions?: Iterable<WorkspacePermission>;
  hierarchy?: Iterable<WorkspacePermission>;
}): WorkspaceGrant {
  return { permissions: permissionSet(g.permissions ?? []), hierarchy: permissionSet(g.hierarchy ?? []) };
}

export const isEmptyGrant = (g: WorkspaceGrant): boolean =>
  g.permissions.length === 0 && g.hierarchy.length === 0;

export function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

export const sameGrant = (a: WorkspaceGrant, b: WorkspaceGrant): boolean =>
  sameSet(a.permissions, b.permissions) && sameSet(a.hierarchy, b.hierarchy);

export const unionSet = <P extends string>(a: readonly P[], b: readonly P[]): P[] =>
  permissionSet([...a, ...b]);
export const minusSet = <P extends string>(a: readonly P[], b: readonly P[]): P[] =>
  a.filter((p) => !b.includes(p));

export const unionGrant = (a: WorkspaceGrant, b: WorkspaceGrant): WorkspaceGrant => ({
  permissions: unionSet(a.permissions, b.permissions),
  hierarchy: unionSet(a.hierarchy, b.hierarchy),
});

/** What `b` lacks of `a`. */
export const minusGrant = (a: WorkspaceGrant, b: WorkspaceGrant): WorkspaceGrant => ({
  permissions: minusSet(a.permissions, b.permissions),
  hierarchy: minusSet(a.hierarchy, b.hierarchy),
});
