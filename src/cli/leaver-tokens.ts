/**
 * A revoked leaver's own API tokens (plan/revoke-access.ts): the planner deletes the tokens it is
 * given (`actual.apiTokens`), and this lists them for exactly the people a first plan revokes
 * (`accessRevoked`, and whose built-in login it deletes under `deletions: revoke`), never for
 * everyone: one paged GET each (service/api-tokens.ts), at the client's pace. When anyone holds
 * a token, the caller plans again with them. Profile v1 only (legacy has no tokens to list).
 */
import type { Logger } from "pino";
import { parseObjectKey, type Plan } from "../plan/index.js";
import type { ActualState, ServiceClient } from "../service/index.js";

/** The user ids a plan revokes: held back or not, since a held-back revoke is shown whole. */
export function revokedPeople(plan: Plan): string[] {
  if (plan.deletions !== "revoke") return [];
  const ids = new Set(plan.accessRevoked ?? []);
  for (const s of plan.steps) {
    if (s.kind !== "deleteCredentials") continue;
    for (const key of s.touches) {
      const ref = parseObjectKey(key);
      if (ref?.kind === "mapping") ids.add(ref.id);
    }
  }
  return [...ids].sort();
}

/** The actual state with the leavers' tokens; undefined when nobody revoked holds one. */
export async function listLeaverTokens(o: {
  client: ServiceClient;
  actual: ActualState;
  plan: Plan;
  logger: Logger;
}): Promise<ActualState | undefined> {
  const api = o.client.apiTokens;
  const people = revokedPeople(o.plan);
  if (api === undefined || people.length === 0 || o.actual.apiTokens !== undefined) return undefined;
  const listed = await Promise.all(people.map(async (id) => [id, await api.list(id)] as const));
  const held = listed.filter(([, ids]) => ids.length > 0);
  const count = held.reduce((n, [, ids]) => n + ids.length, 0);
  o.logger.info(
    { leavers: people.length, holding: held.length, tokens: count },
    `listed the API tokens of ${people.length} revoked leaver(s): ${count} token(s) of ${held.length} to delete`,
  );
  if (held.length === 0) return undefined;
  return { ...o.actual, apiTokens: new Map(held) };
}
