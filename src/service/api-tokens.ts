/**
 * A person's own API tokens (official `metadata-json-api`, `apiTokens` of a user): `GET
 * /api/v1/entities/users/{userId}/apiTokens` lists their ids (a listing never carries a token's
 * value: `bearerToken` is returned only when a token is created, and usersync never creates one),
 * `DELETE .../apiTokens/{id}` deletes one. A token outlives a deleted login and keeps acting with
 * whatever access its owner still holds, so a revoked leaver's are deleted (plan/revoke-access.ts).
 * Profile v1 only; listed only for the people a plan revokes, never for everyone.
 */
import { HttpError } from "../errors.js";
import { resource } from "./answers.js";
import { deleteEntity } from "./delete-entity.js";
import { listAllPages } from "./paging.js";
import type { Transport } from "./transport.js";
import type { ApiTokensClient, CallOptions, DeleteResult } from "./types.js";

const API_TOKEN_RESOURCE = resource("apiToken", []);

const tokensPath = (userId: string): string =>
  `/api/v1/entities/users/${encodeURIComponent(userId)}/apiTokens`;

export class ApiTokensApi implements ApiTokensClient {
  constructor(private readonly o: { transport: Transport; pageSize: number }) {}

  async list(userId: string): Promise<string[]> {
    try {
      const tokens = await listAllPages({
        transport: this.o.transport,
        path: tokensPath(userId),
        pageSize: this.o.pageSize,
        item: API_TOKEN_RESOURCE,
        decode: (r) => ({ id: r.id }),
      });
      return tokens.map((t) => t.id).sort();
    } catch (err) {
      // The user is gone since the listing: they hold no token.
      if (err instanceof HttpError && err.status === 404) return [];
      throw err;
    }
  }

  async delete(userId: string, tokenId: string, opts?: CallOptions): Promise<DeleteResult> {
    return deleteEntity(this.o.transport, `${tokensPath(userId)}/${encodeURIComponent(tokenId)}`, opts);
  }
}
