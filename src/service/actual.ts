/** Lists the organization's actual state through the client (for planning and stale checks). */
import { AnswerError, HttpError } from "../errors.js";
import { v1Codec } from "./profile-v1.js";
import type { ActualState, Mapping, ServiceClient } from "./types.js";

export async function listActualState(client: ServiceClient): Promise<ActualState> {
  const [idpUsers, mappings, groups, profile] = await Promise.all([
    // A 404 on the IdP user listing: this service has no built-in identity provider.
    client.listIdpUsers().catch((err: unknown) => {
      if (err instanceof HttpError && err.status === 404) return undefined;
      throw err;
    }),
    client.listMappings(),
    client.listGroups(),
    client.getProfile(),
  ]);
  if (profile) requireCallerMapped(profile.userId, mappings);
  const actual: ActualState = { idpUsers: idpUsers ?? [], mappings, groups };
  if (idpUsers === undefined) actual.builtinIdp = false;
  if (profile) actual.callerId = profile.userId;
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
