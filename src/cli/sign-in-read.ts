/**
 * How the organization signs people in, read for the planner only when it decides something: a
 * run that may revoke a leaver (`deletions: revoke`) whose mapping points at no built-in login. In
 * an organization that signs in through an OIDC provider such a person may still sign in, so the
 * revoke takes their access away (plan/revoke-access.ts); with the built-in provider they cannot.
 * Two GETs on v1 (service/sign-in.ts), none otherwise; legacy cannot tell.
 */
import type { Policy } from "../plan/index.js";
import type { ActualState, ServiceClient } from "../service/index.js";

export async function signInForRevoke(
  client: ServiceClient,
  actual: ActualState,
  policy: Policy,
): Promise<ActualState["signIn"]> {
  if (policy.deletions !== "revoke" || actual.builtinIdp === false || client.signIn === undefined)
    return undefined;
  const known = new Set(actual.idpUsers.map((u) => u.authenticationId));
  const unlinked = actual.mappings.some(
    (m) => m.authenticationId !== undefined && !known.has(m.authenticationId),
  );
  return unlinked ? (await client.signIn())?.kind : undefined;
}
