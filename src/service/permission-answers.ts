/**
 * The schemas of the permission answers (issue 20's rule, for issue 23's listings): a grant the
 * planner reads is believed only when its answer has the shape of the official OpenAPI. A
 * permission name the spec does not list is a broken answer too, not one to drop: managePermissions
 * sets absolute values, so a grant read without a name it carries would remove that name.
 */
import { z } from "zod";
import { ORGANIZATION_PERMISSIONS, WORKSPACE_PERMISSIONS } from "../permissions.js";
import { resource } from "./answers.js";

const id = z.string().min(1, "must be a non-empty string");
const workspacePermission = z.enum(WORKSPACE_PERMISSIONS, {
  error: `must be one of ${WORKSPACE_PERMISSIONS.join(", ")} (a permission this usersync does not know: upgrade it)`,
});
const organizationPermission = z.enum(ORGANIZATION_PERMISSIONS, {
  error: `must be one of ${ORGANIZATION_PERMISSIONS.join(", ")} (a permission this usersync does not know: upgrade it)`,
});
const assignee = z.looseObject({ id, type: z.enum(["user", "userGroup"]) });

/** `GET /api/v1/entities/workspaces` items (the parent is a relationship, read by the decoder). */
export const WORKSPACE_RESOURCE = resource("workspace", ["name"]);

/** `GET /api/v1/layout/workspaces/{id}/permissions`: `DeclarativeWorkspacePermissions`. */
export const WORKSPACE_LAYOUT_ANSWER = z.looseObject({
  permissions: z.array(z.looseObject({ assignee, name: workspacePermission })).optional(),
  hierarchyPermissions: z.array(z.looseObject({ assignee, name: workspacePermission })).optional(),
});

/** `UserManagementWorkspacePermissionAssignment`: one workspace of an assignee. */
const assignment = z.looseObject({
  id,
  permissions: z.array(workspacePermission),
  hierarchyPermissions: z.array(workspacePermission),
});

/** `GET .../userManagement/users/{id}/permissions`: `UserManagementPermissionAssignments`. */
export const USER_PERMISSIONS_ANSWER = z.looseObject({ workspaces: z.array(assignment) });

const assigneeItem = z.looseObject({ id, workspaces: z.array(assignment) });
export type AssigneeItem = z.infer<typeof assigneeItem>;
const totalCount = z.number().int().min(0);
const PAGES = {
  userGroups: z
    .looseObject({ userGroups: z.array(assigneeItem), totalCount })
    .transform((j) => ({ items: j.userGroups, totalCount: j.totalCount })),
  users: z
    .looseObject({ users: z.array(assigneeItem), totalCount })
    .transform((j) => ({ items: j.users, totalCount: j.totalCount })),
};

/** A page of `GET .../userManagement/{userGroups|users}`: the assignees and the total count. */
export const assigneePageAnswer = (member: "userGroups" | "users") => PAGES[member];

/** `GET /api/v1/layout/organization/permissions`: `DeclarativeOrganizationPermission[]`. */
export const ORGANIZATION_LAYOUT_ANSWER = z.array(z.looseObject({ assignee, name: organizationPermission }));
