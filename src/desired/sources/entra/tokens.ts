/**
 * The Graph token of a run, asked for once and again only near its end (a long read outlives a
 * token of an hour), and the check that Graph gave people their properties at all: without
 * User.Read.All, Graph still lists a group's users but with nothing but their id, which must not
 * be read as "these people have no email".
 */
import type { EntraConfig } from "./schema.js";
import { DirectoryError } from "../../../errors.js";
import type { GroupMembers } from "./members.js";

/** Tokens live an hour; one is renewed when fewer than five minutes remain. */
const RENEW_MS = 50 * 60_000;

export interface TokenProvider {
  /** The current token, minted when there is none or it is near its end. */
  (): Promise<string>;
  /**
   * Graph refused `refused` mid-read (expired or revoked early): the next call gets a fresh
   * token, minted by `get(true)`. Every caller refused the same token shares one renewal.
   */
  renew(refused: string): Promise<void>;
}

/** `get(fresh)`: a token; `fresh`, one that is not the cached one (a new credential, its own cache). */
export function tokenProvider(
  get: (fresh: boolean) => Promise<string>,
  now: () => number = Date.now,
): TokenProvider {
  let current: { token: Promise<string>; at: number } | undefined;
  const renewed = new Set<string>();
  const mint = (fresh: boolean): Promise<string> => {
    const token = get(fresh);
    const minted = { token, at: now() };
    current = minted;
    // A failed request is not kept: the next caller asks again (and fails with its own error).
    token.catch(() => {
      if (current === minted) current = undefined;
    });
    return token;
  };
  const provider = (() => {
    if (current === undefined || now() - current.at > RENEW_MS) return mint(false);
    return current.token;
  }) as TokenProvider;
  provider.renew = async (refused) => {
    if (!renewed.has(refused)) {
      renewed.add(refused);
      void mint(true);
    }
    await provider();
  };
  return provider;
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
