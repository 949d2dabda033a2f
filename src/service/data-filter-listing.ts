/**
 * The data filters part of the actual state: the own filters of every workspace in
 * `dataFilters.workspaces`, one paged listing per workspace (read concurrently, bounded by the
 * transport). Listed only when the run manages filters: a run without them sends nothing more.
 */
import type { ActualDataFilters } from "../data-filters.js";
import { ConfigError } from "../errors.js";
import type { Workspace } from "../permissions.js";
import type { ServiceClient } from "./types.js";

export interface DataFilterListing {
  /** Whether a workspace id is in `dataFilters.workspaces`. */
  inScope: (workspace: string) => boolean;
}

export async function listDataFilters(
  client: ServiceClient,
  listing: DataFilterListing,
  workspaces: readonly Workspace[],
): Promise<ActualDataFilters> {
  const api = client.dataFilters;
  if (!api)
    throw new ConfigError({
      message: `user data filters need the current API (profile v1); this service speaks ${client.profile}: leave dataFilters out of the desired state`,
    });
  const ids = workspaces.map((w) => w.id).filter(listing.inScope);
  const lists = await Promise.all(ids.map((ws) => api.list(ws)));
  return { workspaces: ids, filters: lists.flat() };
}
