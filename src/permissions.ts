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

/**
 * What each workspace permission covers besides itself, as the service documents it
 * (shared/spec/access-rules.md R5-R8): MANAGE covers VIEW, CREATE_FILTER_VIEW, ANALYZE and EXPORT
 * (and so EXPORT_PDF and EXPORT_TABULAR); ANALYZE covers VIEW; EXPORT covers VIEW, EXPORT_PDF and
 * EXPORT_TABULAR; EXPORT_PDF and EXPORT_TABULAR each cover VIEW. The add-ons (CREATE_FILTER_VIEW,
 * CREATE_AUTOMATION, USE_AI_ASSISTANT) cover nothing, not even VIEW; MANAGE does not cover
 * CREATE_AUTOMATION or USE_AI_ASSISTANT (R8, the documents' reading).
 */
export const WORKSPACE_IMPLIES: Readonly<Record<WorkspacePermission, readonly WorkspacePermission[]>> = {
  MANAGE: ["VIEW", "CREATE_FILTER_VIEW", "ANALYZE", "EXPORT", "EXPORT_PDF", "EXPORT_TABULAR"],
  ANALYZE: ["VIEW"],
  EXPORT: ["VIEW", "EXPORT_PDF", "EXPORT_TABULAR"],
  EXPORT_PDF: ["VIEW"],
  EXPORT_TABULAR: ["VIEW"],
  CREATE_AUTOMATION: [],
  USE_AI_ASSISTANT: [],
  CREATE_FILTER_VIEW: [],
  VIEW: [],
};

/** Organization MANAGE covers SELF_CREATE_TOKEN (R10). */
export const ORGANIZATION_IMPLIES: Readonly<
  Record<OrganizationPermission, readonly OrganizationPermission[]>
> = { MANAGE: ["SELF_CREATE_TOKEN"], SELF_CREATE_TOKEN: [] };

/** What a set of granted workspace permissions lets a person do: the set with what each covers, sorted. */
export function effectiveWorkspace(granted: readonly WorkspacePermission[]): WorkspacePermission[] {
  return permissionSet(granted.flatMap((p) => [p, ...WORKSPACE_IMPLIES[p]]));
}

export function effectiveOrganization(granted: readonly OrganizationPermission[]): OrganizationPermission[] {
  return permissionSet(granted.flatMap((p) => [p, ...ORGANIZATION_IMPLIES[p]]));
}

/** Whether these permissions reach the workspace at all: only with VIEW, granted or covered (R7). */
export const reachesWorkspace = (granted: readonly WorkspacePermission[]): boolean =>
  effectiveWorkspace(granted).includes("VIEW");

/**
 * Whether `after` lets a person do something `before` did not (a raise), and the other way (a
 * lowering), comparing what the sets cover, not their names: EXPORT_PDF -> EXPORT is a raise only.
 */
export function compareCoverage<P extends string>(
  before: readonly P[],
  after: readonly P[],
  cover: (set: readonly P[]) => P[],
): { raised: boolean; lowered: boolean } {
  const b = cover(before);
  const a = cover(after);
  return { raised: a.some((p) => !b.includes(p)), lowered: b.some((p) => !a.includes(p)) };
}
