/** Lists the organization's actual state through the client (for planning and stale checks). */
import type { ActualState, ServiceClient } from "../service/types.js";

export async function listActualState(client: ServiceClient): Promise<ActualState> {
  const [idpUsers, mappings, groups, profile] = await Promise.all([
    client.listIdpUsers(),
    client.listMappings(),
    client.listGroups(),
    client.getProfile(),
  ]);
  const actual: ActualState = { idpUsers, mappings, groups };
  if (profile) actual.callerId = profile.userId;
  return actual;
}
