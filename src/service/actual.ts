/** Lists the organization's actual state through the client (for planning and stale checks). */
import { AnswerError, HttpError } from "../errors.js";
import { listDataFilters, type DataFilterListing } from "./data-filter-listing.js";
import { listPermissions, type PermissionListing } from "./permission-listing.js";
import { v1Codec } from "./profile-v1.js";
import type { ActualState, Mapping, ServiceClient } from "./types.js";

export interface ListOptions {
  /** Also list workspaces and the grants a run manages (only then: a run without permissions sends what it always sent). */
  permissions?: PermissionListing | undefined;
  /** Also list the data filters of the workspaces in scope (only then). */
  dataFilters?: DataFilterListing | undefined;
}

export async function listActualState(
  client: ServiceClient,
  options: ListOptions = {},
): Promise<ActualState> {
  const [idpUsers, mappings, groups, profile, workspaces] = await Promise.all([
    // A 404 on the IdP user listing: this service has no built-in identity provider.
    client.listIdpUsers().catch((err: unknown) => {
      if (err instanceof HttpError && err.status === 404) return undefined;
      throw err;
    }),
    client.listMappings(),
    client.listGroups(),
    client.getProfile(),
    options.permissions || options.dataFilters ? client.permissions.listWorkspaces() : undefined,
  ]);
  if (profile) requireCallerMapped(profile.userId, mappings);
  const actual: ActualState = { idpUsers: idpUsers ?? [], mappings, groups };
  if (idpUsers === undefined) actual.builtinIdp = false;
  if (profile) actual.callerId = profile.userId;
  if (options.permissions && workspaces)
    actual.permissions = await listPermissions(client.permissions, options.permissions, {
      workspaces,
      groups: groups.length,
      users: mappings.length,
    });
  if (options.dataFilters && workspaces)
    actual.dataFilters = await listDataFilters(client, options.dataFilters, workspaces);
  return actual;
}

/**
 * The token's owner must be one of the mappings listed (profile v1; legacy has no profile): the
 * caller's own login is protected by its mapping, and a listing without it is either incomplete or
 * of another organization. Either way nothing is planned on it.
 */
function requireCallerMapped(userId: string, mappings: readonly Mapping[]): void {
  if (mappings.some((m) => m.id === userId)) return;
  throw new AnswerError({
    method: "GET",
    path: v1Codec.paths.users,
    problem:
      `the token's owner "${userId}" (${v1Codec.paths.profile}) is not among the ${mappings.length} mappings listed: ` +
      "the listing is incomplete, or the token belongs to a user this organization does not map. " +
      "usersync protects the caller's own login and cannot without finding it",
  });
}
