/**
 * What `usersync review` lists (docs/audits.md, "Access review"): every workspace, every user's
 * and group's grants on all of them (by assignee, page by page, or one layout per workspace when
 * that is cheaper: service/permission-listing.ts picks, as for `plan`), the organization's grants,
 * and every workspace's own data filters. No request per person.
 *
 * The planner, run beside it to tell whether the desired state agrees, is given the part of that
 * listing `plan` would have read (`narrowForPlan`), so its answer is the one `plan` gives.
 */
import type { DesiredState } from "../desired/index.js";
import type { ActualState, PermissionListing } from "../service/index.js";
import { dataFilterListing, permissionListing, type Policy } from "../plan/index.js";

export function reviewPermissionListing(pageSize: number): PermissionListing {
  return { inScope: () => true, users: "all", organization: true, pageSize };
}

export const reviewFilterListing = { inScope: (): boolean => true };

/** Both listings for a service of this profile (legacy has no workspaces, permissions or filters). */
export function reviewListings(
  profile: string,
  pageSize: number,
): { permissions: PermissionListing | undefined; dataFilters: typeof reviewFilterListing | undefined } {
  return profile === "v1"
    ? { permissions: reviewPermissionListing(pageSize), dataFilters: reviewFilterListing }
    : { permissions: undefined, dataFilters: undefined };
}

/** The listing as `plan` would have read it for this desired state and policy. */
export function narrowForPlan(
  actual: ActualState,
  o: { desired: DesiredState; policy: Policy; pageSize: number },
): ActualState {
  const out: ActualState = { ...actual };
  delete out.permissions;
  delete out.dataFilters;
  const perms = permissionListing(o.desired, o.policy, o.pageSize);
  if (perms && actual.permissions) {
    const users = perms.users === "all" ? undefined : new Set(perms.users);
    out.permissions = {
      ...actual.permissions,
      assignments: actual.permissions.assignments.filter(
        (a) =>
          perms.inScope(a.workspace) &&
          (a.assignee.type === "userGroup" || users === undefined || users.has(a.assignee.id)),
      ),
    };
    if (!perms.organization) delete out.permissions.organization;
  }
  const filters = dataFilterListing({ desired: o.desired, policy: o.policy });
  if (filters && actual.dataFilters)
    out.dataFilters = {
      workspaces: actual.dataFilters.workspaces.filter(filters.inScope),
      filters: actual.dataFilters.filters.filter((f) => filters.inScope(f.workspace)),
    };
  return out;
}
