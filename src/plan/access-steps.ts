/**
 * The steps on access (permissions, data filters, a leaver's API tokens): what a person can reach
 * and see, beside the steps on people and groups in types.ts.
 */
import type { Assignee, OrganizationPermission, WorkspaceGrant } from "../permissions.js";
import type { StepBase } from "./step-base.js";

/** One assignee's grant on the step's workspace: what it holds, and what it holds once the step is done. */
export interface PermissionChange {
  assignee: Assignee;
  before: WorkspaceGrant;
  after: WorkspaceGrant;
}
export interface OrganizationChange {
  assignee: Assignee;
  before: OrganizationPermission[];
  after: OrganizationPermission[];
}
/** Adds permissions on a workspace (`target`), one `managePermissions` for every assignee listed. */
export interface GrantWorkspacePermissionsStep extends StepBase {
  kind: "grantWorkspacePermissions";
  target: string;
  changes: PermissionChange[];
}
/** Takes permissions away on a workspace; held back, like deletions, over `permissions.maxRemovals`. */
export interface RevokeWorkspacePermissionsStep extends StepBase {
  kind: "revokeWorkspacePermissions";
  target: string;
  changes: PermissionChange[];
}
export interface GrantOrganizationPermissionsStep extends StepBase {
  kind: "grantOrganizationPermissions";
  /** Always `organization`. */
  target: string;
  changes: OrganizationChange[];
}
export interface RevokeOrganizationPermissionsStep extends StepBase {
  kind: "revokeOrganizationPermissions";
  target: string;
  changes: OrganizationChange[];
}
export type WorkspacePermissionsStep = GrantWorkspacePermissionsStep | RevokeWorkspacePermissionsStep;
export type OrganizationPermissionsStep =
  GrantOrganizationPermissionsStep | RevokeOrganizationPermissionsStep;
/**
 * One assignee's user data filter on one workspace (docs/data-filters.md); `target` is
 * `<workspace>/<user|userGroup>/<id>`, `filterId` the stable id usersync gives the filter.
 */
interface DataFilterStepBase extends StepBase {
  target: string;
  workspace: string;
  assignee: Assignee;
  filterId: string;
}
export interface CreateDataFilterStep extends DataFilterStepBase {
  kind: "createDataFilter";
  after: { maql: string };
}
/** `widening`: the filter may show more rows while its holder keeps access (held back over `dataFilters.maxWidenings`). */
export interface UpdateDataFilterStep extends DataFilterStepBase {
  kind: "updateDataFilter";
  before: { maql: string };
  after: { maql: string };
  widening: boolean;
}
export interface DeleteDataFilterStep extends DataFilterStepBase {
  kind: "deleteDataFilter";
  before: { maql: string };
  widening: boolean;
}
export type DataFilterStep = CreateDataFilterStep | UpdateDataFilterStep | DeleteDataFilterStep;

/**
 * Deletes one of a revoked leaver's own API tokens (`deletions: revoke`, plan/revoke-access.ts):
 * a token outlives a deleted login and acts with whatever its owner still holds. `target` is
 * `<user id>/<token id>`; the plan holds the token's id, never its value.
 */
export interface DeleteApiTokenStep extends StepBase {
  kind: "deleteApiToken";
  target: string;
  userId: string;
  tokenId: string;
}
