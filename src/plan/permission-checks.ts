/**
 * The rules of permissions that need the config (checked offline by `validate` and before any
 * listing by `plan`/`apply`) or the service's workspaces (checked once they are listed), and what
 * a run must list to plan them. Every problem names the row and field it is about; any of them
 * stops the run with exit 4 before anything is sent.
 */
import { whereOf } from "../desired/records.js";
import type { DesiredGroup, DesiredState, DesiredUser } from "../desired/types.js";
import type { Problem } from "../errors.js";
import type { Workspace } from "../permissions.js";
import type { PermissionListing } from "../service/permission-listing.js";
import { listsEveryUsersGrants } from "./hand-made-grants.js";
import type { Policy } from "./policy.js";
import { managesDataFilters } from "./access/data-filters.js";
import { workspaceMatcher } from "./safety.js";

type Holder = DesiredUser | DesiredGroup;

const holders = (desired: DesiredState): Holder[] => [
  ...desired.groups,
  ...desired.users.filter((u) => u.state === "present"),
];

const noun = (r: Holder): string => ("email" in r ? `user "${r.id}"` : `group "${r.id}"`);

function problem(r: Holder, field: string, rule: string, message: string, warning = false): Problem {
  const where = whereOf(r, field);
  return {
    file: where.file,
    ...(where.line !== undefined ? { line: where.line } : {}),
    field: where.field ?? field,
    rule,
    message,
    ...(warning ? { severity: "warning" as const } : {}),
  };
}

/**
 * What the config allows: every workspace named within `permissions.workspaces`, organization
 * MANAGE only when allowed (errors). With `permissions.workspaces` unset, workspace permissions
 * are not managed at all: one warning says so (like a setting that has no effect), and the run
 * goes on without them.
 */
export function checkPermissionPolicy(desired: DesiredState, policy: Policy): Problem[] {
  const out: Problem[] = [];
  const { workspaces, allowOrganizationManage } = policy.permissions;
  const inScope = workspaceMatcher(workspaces);
  const granting = holders(desired).filter((r) => r.workspaces !== undefined);
  const first = granting[0];
  if (first !== undefined && workspaces.length === 0) {
    const more = granting.length > 1 ? ` (and ${granting.length - 1} more)` : "";
    out.push(
      problem(
        first,
        "workspaces",
        "permissions-not-configured",
        `${noun(first)}${more} carries workspace permissions, but permissions.workspaces is not set: they are left alone. Set it to the workspaces usersync may change (a list, a pattern, or all), see docs/permissions.md`,
        true,
      ),
    );
  } else
    for (const r of granting)
      for (const w of r.workspaces ?? [])
        if (!inScope(w.workspace))
          out.push(
            problem(
              r,
              "workspaces",
              "workspace-out-of-scope",
              `workspace "${w.workspace}" is outside permissions.workspaces (${workspaces.join(", ")}): add it there, or leave it out of ${noun(r)}`,
            ),
          );
  if (!allowOrganizationManage)
    for (const r of holders(desired))
      if (r.organization?.includes("MANAGE"))
        out.push(
          problem(
            r,
            "organization",
            "organization-manage-not-allowed",
            `${noun(r)} would be given organization MANAGE (it administers everything): set permissions.organization.allowManage: true if that is meant`,
          ),
        );
  return out;
}

/** Every workspace in scope the desired state names must exist in the organization (rule `unknown-workspace`). */
export function checkWorkspaceReferences(
  desired: DesiredState,
  workspaces: readonly Workspace[],
  policy: Policy,
): Problem[] {
  const known = new Set(workspaces.map((w) => w.id));
  const inScope = workspaceMatcher(policy.permissions.workspaces);
  const out: Problem[] = [];
  for (const r of holders(desired))
    for (const w of r.workspaces ?? [])
      if (inScope(w.workspace) && !known.has(w.workspace))
        out.push(
          problem(
            r,
            "workspaces",
            "unknown-workspace",
            `workspace "${w.workspace}" does not exist in the organization (${known.size} workspace${known.size === 1 ? "" : "s"} listed): check the id`,
          ),
        );
  return out;
}

/**
 * A full run with `deletions: revoke` may revoke the access of a leaver the desired state does not
 * name (plan/revoke-access.ts): their direct grants are only seen by reading everyone's.
 */
const revokesUnnamed = (policy: Policy): boolean => policy.mode === "full" && policy.deletions === "revoke";

/**
 * What a run lists to plan permissions (service/permission-listing.ts), or undefined when none
 * are managed: the workspaces of `permissions.workspaces`, every group, the users whose grants
 * are managed, and the organization's grants when any user or group names them.
 */
export function permissionListing(
  desired: DesiredState,
  policy: Policy,
  pageSize: number,
): PermissionListing | undefined {
  const all = holders(desired);
  // Data filters need every grant of the workspaces in scope: whether a filter still guards access
  // (a widening, or not) depends on anyone's grant there, a member's own included (plan/access/reach.ts).
  const filters = managesDataFilters({ desired, policy });
  const workspaces =
    policy.permissions.workspaces.length > 0 && (filters || all.some((r) => r.workspaces !== undefined));
  const organization = all.some((r) => r.organization !== undefined);
  if (!workspaces && !organization) return undefined;
  return {
    inScope: workspaceMatcher(policy.permissions.workspaces),
    users: !workspaces
      ? []
      : filters || listsEveryUsersGrants(desired, policy) || revokesUnnamed(policy)
        ? "all"
        : desired.users
            .filter((u) =>
              u.state === "present" ? u.workspaces !== undefined : policy.deletions === "revoke",
            )
            .map((u) => u.id),
    organization,
    pageSize,
  };
}

/**
 * What `export` lists: every user's and group's grants on the workspaces the config manages (a
 * file naming others would be refused), and the organization's; nothing when none are managed.
 */
export function exportListing(policy: Policy, pageSize: number): PermissionListing | undefined {
  if (policy.permissions.workspaces.length === 0) return undefined;
  return {
    inScope: workspaceMatcher(policy.permissions.workspaces),
    users: "all",
    organization: true,
    pageSize,
  };
}
