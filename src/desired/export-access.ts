/**
 * Permissions in an export: each user's and group's direct grants on the listed workspaces, and
 * its organization permissions, in the desired state's forms (YAML mapping, CSV cell). Only
 * users and groups that hold something get the fields, so the others stay unmanaged when the file
 * is read back. Organization MANAGE is left out unless the config allows managing it (a file
 * that grants it would be refused): the export says how many were left out.
 */
import type { ActualPermissions, Assignee, OrganizationPermission, WorkspaceGrant } from "../permissions.js";
import { assigneeKey } from "../permissions.js";

export interface ExportedAccess {
  workspaces?: Array<{ workspace: string } & WorkspaceGrant>;
  organization?: OrganizationPermission[];
  /** The filters usersync keeps (export-filters.ts). */
  dataFilters?: Array<{ workspace: string; maql: string }>;
}

/** The grants of every assignee by key (`userGroup/sales`), ready to attach; warnings for what was left out. */
export function accessByAssignee(
  permissions: ActualPermissions | undefined,
  options: { allowOrganizationManage: boolean },
): { of: (a: Assignee) => ExportedAccess; warnings: string[] } {
  const by = new Map<string, ExportedAccess>();
  const entry = (a: Assignee): ExportedAccess =>
    by.get(assigneeKey(a)) ?? by.set(assigneeKey(a), {}).get(assigneeKey(a))!;
  for (const g of permissions?.assignments ?? [])
    (entry(g.assignee).workspaces ??= []).push({
      workspace: g.workspace,
      permissions: g.permissions,
      hierarchy: g.hierarchy,
    });
  let withheld = 0;
  for (const o of permissions?.organization ?? []) {
    const kept = options.allowOrganizationManage
      ? o.permissions
      : o.permissions.filter((p) => p !== "MANAGE");
    if (kept.length < o.permissions.length) withheld += 1;
    if (kept.length > 0) entry(o.assignee).organization = kept;
  }
  const warnings =
    withheld > 0
      ? [
          `organization MANAGE of ${withheld} user(s) or group(s) is not exported: permissions.organization.allowManage is off (a file granting it would be refused)`,
        ]
      : [];
  return { of: (a) => by.get(assigneeKey(a)) ?? {}, warnings };
}

/** YAML: `{sales-emea: [VIEW], finance: {permissions: [ANALYZE], hierarchy: [VIEW]}}`. */
export function yamlWorkspaces(list: ExportedAccess["workspaces"]): Record<string, unknown> | undefined {
  if (list === undefined) return undefined;
  return Object.fromEntries(
    list.map((w) => [
      w.workspace,
      w.hierarchy.length > 0
        ? { permissions: [...w.permissions], hierarchy: [...w.hierarchy] }
        : [...w.permissions],
    ]),
  );
}

/** CSV: `sales-emea=VIEW+EXPORT; finance=ANALYZE; finance/*=VIEW`. */
export function csvWorkspaces(list: ExportedAccess["workspaces"]): string {
  return (list ?? [])
    .flatMap((w) => [
      ...(w.permissions.length > 0 || w.hierarchy.length === 0
        ? [`${w.workspace}=${w.permissions.join("+")}`]
        : []),
      ...(w.hierarchy.length > 0 ? [`${w.workspace}/*=${w.hierarchy.join("+")}`] : []),
    ])
    .join("; ");
}
