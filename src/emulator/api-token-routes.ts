/**
 * A user's API tokens, as the official `metadata-json-api` serves them (`apiTokens` of a user):
 * `GET /api/v1/entities/users/{userId}/apiTokens` (paged like every collection), `POST` (the new
 * token's `bearerToken` in the answer, the only time it is shown), `GET .../{id}` and `DELETE
 * .../{id}` (204). A user the store does not map answers 404; a user's tokens go with the user.
 * Seeded with `apiTokens: [{user, id}]`.
 */
import { randomBytes } from "node:crypto";
import { JSON_API, ProblemError, type Reply } from "./http-util.js";
import { listLinksAndMeta, parseListQuery } from "./paging.js";
import type { Route, RouteContext } from "./route-context.js";
import { cmp } from "./store.js";

const ENTITY_ID = /^(?!\.)[.A-Za-z0-9_-]{1,255}$/;

function tokenOut(ctx: RouteContext, user: string, id: string): Record<string, unknown> {
  return {
    id,
    type: "apiToken",
    links: { self: `${ctx.base}/api/v1/entities/users/${encodeURIComponent(user)}/apiTokens/${id}` },
  };
}

function listTokens(ctx: RouteContext, user: string, tokens: Set<string>): Reply {
  const q = parseListQuery(ctx.query, { filterFields: [], includes: [] });
  const all = [...tokens].sort(cmp);
  const ids = all.slice(q.page * q.size, (q.page + 1) * q.size);
  const doc = {
    data: ids.map((id) => tokenOut(ctx, user, id)),
    ...listLinksAndMeta({ base: ctx.base, url: ctx.url, q, total: all.length }),
  };
  return { status: 200, contentType: JSON_API, body: doc };
}

function createToken(ctx: RouteContext, user: string, tokens: Set<string>): Reply {
  const body = ctx.body(JSON_API) as { data?: { id?: unknown; type?: unknown } } | null;
  const id = body?.data?.id;
  if (typeof id !== "string" || !ENTITY_ID.test(id) || body?.data?.type !== "apiToken")
    throw new ProblemError(400, 'a token is created with {"data": {"id": "<id>", "type": "apiToken"}}');
  if (tokens.has(id)) throw new ProblemError(409, `API token ${id} of user ${user} already exists`);
  tokens.add(id);
  ctx.store.revision++;
  const out = {
    ...tokenOut(ctx, user, id),
    attributes: { bearerToken: randomBytes(24).toString("base64url") },
  };
  return { status: 201, contentType: JSON_API, body: { data: out } };
}

function handleTokens(ctx: RouteContext, user: string, id: string | undefined): Reply {
  if (!ctx.store.mappings.has(user)) throw new ProblemError(404, `user ${user} not found`);
  const tokens = ctx.store.tokensOf(user);
  if (id === undefined) {
    if (ctx.method === "GET") return listTokens(ctx, user, tokens);
    if (ctx.method === "POST") return createToken(ctx, user, tokens);
    throw new ProblemError(405, `${ctx.method} is not allowed here (GET, POST)`);
  }
  if (!tokens.has(id)) throw new ProblemError(404, `API token ${id} of user ${user} not found`);
  if (ctx.method === "GET")
    return { status: 200, contentType: JSON_API, body: { data: tokenOut(ctx, user, id) } };
  if (ctx.method !== "DELETE") throw new ProblemError(405, `${ctx.method} is not allowed here (GET, DELETE)`);
  tokens.delete(id);
  ctx.store.revision++;
  return { status: 204 };
}

export const API_TOKEN_ROUTES: Route[] = [
  {
    profile: "v1",
    pattern: /^\/api\/v1\/entities\/users\/([^/]+)\/apiTokens(?:\/([^/]+))?$/,
    handler: (m) => (ctx) =>
      handleTokens(
        ctx,
        decodeURIComponent(m[1] ?? ""),
        m[2] === undefined ? undefined : decodeURIComponent(m[2]),
      ),
  },
];
