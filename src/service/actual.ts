/** Lists the organization's actual state through the client (for planning and stale checks). */
import { HttpError } from "../errors.js";
import { listPermissions, type PermissionListing } from "./permission-listing.js";
import type { ActualState, ServiceClient } from "./types.js";

export interface ListOptions {
  /** Also list workspaces and the grants a run manages (only then: a run without permissions sends what it always sent). */
  permissions?: PermissionListing | undefined;
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
    options.permissions ? client.permissions.listWorkspaces() : undefined,
  ]);
  const actual: ActualState = { idpUsers: idpUsers ?? [], mappings, groups };
  if (idpUsers === undefined) actual.builtinIdp = false;
  if (profile) actual.callerId = profile.userId;
  if (options.permissions && workspaces)
    actual.permissions = await listPermissions(client.permissions, options.permissions, {
      workspaces,
      groups: groups.length,
      users: mappings.length,
    });
  return actual;
}
