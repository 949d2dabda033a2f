/** Lists the organization's actual state through the client (for planning and stale checks). */
import { HttpError } from "../errors.js";
import type { ActualState, ServiceClient } from "./types.js";

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
  const actual: ActualState = { idpUsers: idpUsers ?? [], mappings, groups };
  if (idpUsers === undefined) actual.builtinIdp = false;
  if (profile) actual.callerId = profile.userId;
  return actual;
}
