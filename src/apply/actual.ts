/** Lists the organization's actual state through the client (for planning and stale checks). */
import { HttpError } from "../errors.js";
import type { ActualState, IdpUser, ServiceClient } from "../service/types.js";

/** A 404 on the IdP user listing: this service has no built-in identity provider. */
const NO_BUILTIN_IDP = Symbol("no built-in IdP");

export async function listActualState(client: ServiceClient): Promise<ActualState> {
  const [idpUsers, mappings, groups, profile] = await Promise.all([
    client.listIdpUsers().catch((err: unknown): IdpUser[] | typeof NO_BUILTIN_IDP => {
      if (err instanceof HttpError && err.status === 404) return NO_BUILTIN_IDP;
      throw err;
    }),
    client.listMappings(),
    client.listGroups(),
    client.getProfile(),
  ]);
  const actual: ActualState = {
    idpUsers: idpUsers === NO_BUILTIN_IDP ? [] : idpUsers,
    mappings,
    groups,
  };
  if (idpUsers === NO_BUILTIN_IDP) actual.builtinIdp = false;
  if (profile) actual.callerId = profile.userId;
  return actual;
}
