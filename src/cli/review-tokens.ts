/**
 * The access review lists a leaver's own API tokens (docs/audits.md, `leaverApiTokens`): a token
 * outlives a deleted login and acts with whatever access its owner holds. The review is built
 * once, the tokens of the people it finds leaving (login revoked, or marked absent) are listed,
 * one paged GET each (service/api-tokens.ts; ids only, never a value), and it is built again with
 * them. Nobody else's tokens are listed: one GET per person of a large organization is not paid
 * for a finding only a leaver can have. Profile v1 only.
 */
import type { Review } from "../review/types.js";
import type { ActualState, ServiceClient } from "../service/index.js";

export async function withLeaverTokens(
  client: ServiceClient,
  build: (actual: ActualState) => Review,
  actual: ActualState,
): Promise<Review> {
  const first = build(actual);
  const api = client.apiTokens;
  const leavers = first.people
    .filter((p) => p.login === "revoked" || p.desiredState === "absent")
    .flatMap((p) => (p.id === undefined ? [] : [p.id]));
  if (api === undefined || leavers.length === 0) return first;
  const listed = await Promise.all(leavers.map(async (id) => [id, await api.list(id)] as const));
  return build({ ...actual, apiTokens: new Map(listed) });
}
