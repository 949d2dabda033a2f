/**
 * The Graph token of a run, asked for once and again only near its end (a long read outlives a
 * token of an hour), and the check that Graph gave people their properties at all: without
 * User.Read.All, Graph still lists a group's users but with nothing but their id, which must not
 * be read as "these people have no email".
 */
import type { EntraConfig } from "../../../config/entra-schema.js";
import { DirectoryError } from "../../../errors.js";
import type { GroupMembers } from "./members.js";

/** Tokens live an hour; one is renewed when fewer than five minutes remain. */
const RENEW_MS = 50 * 60_000;

export function tokenProvider(
  get: () => Promise<string>,
  now: () => number = Date.now,
): () => Promise<string> {
  let current: { token: Promise<string>; at: number } | undefined;
  return () => {
    if (current === undefined || now() - current.at > RENEW_MS) {
      const token = get();
      current = { token, at: now() };
      // A failed request is not kept: the next caller asks again (and fails with its own error).
      token.catch(() => (current = undefined));
    }
    return current.token;
  };
}

/** A user listed with no userPrincipalName is Graph's "limited information": the permission is missing. */
export function limitedUserInfo(members: GroupMembers[], config: EntraConfig): void {
  for (const m of members) {
    const bare = m.users.find((u) => typeof u["userPrincipalName"] !== "string");
    if (bare === undefined) continue;
    throw new DirectoryError({
      message: `Microsoft Graph lists the people of group ${String(m.picked.group["displayName"] ?? m.picked.group.id)} without their properties (user ${bare.id} has no userPrincipalName): the app registration ${config.clientId} lacks the application permission User.Read.All. Fix: add it (with GroupMember.Read.All) and grant admin consent (docs/entra.md)`,
    });
  }
}
