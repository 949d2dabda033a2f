/**
 * The organization entity, as far as a source needs it to know who signs in as whom: `GET
 * /api/v1/entities/organization` (302 to the entity, as the official OpenAPI says) and `GET
 * /api/v1/entities/admin/organizations/{id}` with `include=identityProvider`. Its
 * `oauthSubjectIdClaim` (official `metadata-json-api`: "the claim in ID token that should be used
 * for user identification; the default value is 'sub'") is set by the seed's `organization` or the
 * `signIn` option (organization-seed.ts); without it the organization signs people in through the
 * built-in identity provider. Its identity providers are listed at `/api/v1/entities/identityProviders`.
 */
import { JSON_API, ProblemError, type Reply } from "./http-util.js";
import type { Route, RouteContext } from "./route-context.js";
import type { EmulatorSignIn, SeedIdentityProvider } from "./types.js";

function organizationReply(ctx: RouteContext, signIn: EmulatorSignIn | undefined): Reply {
  if (ctx.method !== "GET") throw new ProblemError(405, `${ctx.method} is not allowed here (GET)`);
  const id = ctx.store.organizationId;
  if (ctx.param !== id) throw new ProblemError(404, `organization ${ctx.param ?? ""} not found`);
  const idp = signIn?.identityProvider;
  const attributes: Record<string, unknown> = { name: "Emulated organization", hostname: "127.0.0.1" };
  if (signIn?.oauthIssuerLocation !== undefined)
    attributes["oauthIssuerLocation"] = signIn.oauthIssuerLocation;
  if (signIn?.oauthSubjectIdClaim !== undefined)
    attributes["oauthSubjectIdClaim"] = signIn.oauthSubjectIdClaim;
  const data: Record<string, unknown> = {
    id,
    type: "organization",
    attributes,
    links: { self: `${ctx.base}/api/v1/entities/admin/organizations/${encodeURIComponent(id)}` },
  };
  if (idp) data["relationships"] = { identityProvider: { data: { id: idp.id, type: "identityProvider" } } };
  const include = (ctx.query.get("include") ?? "").split(",");
  const doc: Record<string, unknown> = { data, links: { self: `${ctx.base}${ctx.url}` } };
  if (idp && include.includes("identityProvider")) doc["included"] = [identityProviderResource(ctx, idp)];
  return { status: 200, contentType: JSON_API, body: doc };
}

/** `GET /api/v1/entities/organizationSettings`: every setting in one page (an organization has a few). */
function settingsReply(ctx: RouteContext): Reply {
  if (ctx.method !== "GET") throw new ProblemError(405, `${ctx.method} is not allowed here (GET)`);
  const data = ctx.store.organizationSettings.map((s) => ({
    id: s.id,
    type: "organizationSetting",
    attributes: { type: s.type, content: s.content },
    links: { self: `${ctx.base}/api/v1/entities/organizationSettings/${s.id}` },
  }));
  return { status: 200, contentType: JSON_API, body: { data, links: { self: `${ctx.base}${ctx.url}` } } };
}

/** An identityProvider resource (JsonApiIdentityProviderOut), its attributes as seeded. */
function identityProviderResource(ctx: RouteContext, idp: SeedIdentityProvider): Record<string, unknown> {
  const { id, ...attributes } = idp;
  return {
    id,
    type: "identityProvider",
    attributes,
    links: { self: `${ctx.base}/api/v1/entities/identityProviders/${id}` },
  };
}

/** `GET /api/v1/entities/identityProviders[/{id}]`: the organization's providers, in one page (an organization has a few). */
function identityProvidersReply(ctx: RouteContext): Reply {
  if (ctx.method !== "GET") throw new ProblemError(405, `${ctx.method} is not allowed here (GET)`);
  const self = { self: `${ctx.base}${ctx.url}` };
  if (ctx.param === undefined) {
    const data = ctx.store.identityProviders.map((p) => identityProviderResource(ctx, p));
    return { status: 200, contentType: JSON_API, body: { data, links: self } };
  }
  const idp = ctx.store.identityProviders.find((p) => p.id === ctx.param);
  if (idp === undefined) throw new ProblemError(404, `identity provider ${ctx.param} not found`);
  return {
    status: 200,
    contentType: JSON_API,
    body: { data: identityProviderResource(ctx, idp), links: self },
  };
}

export const ORGANIZATION_ROUTES: Route[] = [
  {
    profile: "v1",
    pattern: /^\/api\/v1\/entities\/identityProviders(?:\/([^/]+))?$/,
    param: 1,
    handler: () => identityProvidersReply,
  },
  {
    profile: "v1",
    pattern: /^\/api\/v1\/entities\/organizationSettings$/,
    handler: () => settingsReply,
  },
  {
    profile: "v1",
    pattern: /^\/api\/v1\/entities\/organization$/,
    handler: () => (ctx) => ({
      status: 302,
      headers: {
        Location: `${ctx.base}/api/v1/entities/admin/organizations/${encodeURIComponent(ctx.store.organizationId)}`,
      },
    }),
  },
  {
    profile: "v1",
    pattern: /^\/api\/v1\/entities\/admin\/organizations\/([^/]+)$/,
    param: 1,
    handler: () => (ctx) => organizationReply(ctx, ctx.store.signIn),
  },
];
