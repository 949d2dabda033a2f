/**
 * Who signs in as whom (issue 28, DESIGN section 9): the organization names the ID-token claim
 * that identifies a user, `oauthSubjectIdClaim` (official `metadata-json-api`, on the organization
 * and on its identityProvider entity; "the default value is 'sub'"). A directory source maps that
 * claim to one of its attributes, so a mapping's `authenticationId` is what the login will carry.
 * Read with two GETs: the profile (the organization's id) and the organization with its
 * identity provider included.
 */
import { z } from "zod";
import { ENTITY_MEDIA, JSON_MEDIA } from "./codec.js";
import type { Transport } from "./transport.js";

import type { OrganizationSignIn } from "./types.js";

export type { OrganizationSignIn } from "./types.js";

const PROFILE = z.looseObject({ organizationId: z.string().min(1) });
const text = z.string().nullish();
const ORGANIZATION = z.looseObject({
  data: z.looseObject({
    id: z.string(),
    attributes: z.looseObject({ oauthIssuerLocation: text, oauthSubjectIdClaim: text }).optional(),
    relationships: z
      .looseObject({
        identityProvider: z.looseObject({ data: z.looseObject({ id: z.string() }).nullish() }).optional(),
      })
      .optional(),
  }),
  included: z
    .array(
      z.looseObject({
        id: z.string(),
        type: z.string(),
        attributes: z
          .looseObject({ idpType: text, oauthIssuerLocation: text, oauthSubjectIdClaim: text })
          .optional(),
      }),
    )
    .optional(),
});

/** The sign-in an organization document describes; its identityProvider, when it has one, wins. */
export function signInOf(doc: z.output<typeof ORGANIZATION>): OrganizationSignIn {
  const idpId = doc.data.relationships?.identityProvider?.data?.id;
  const idp = doc.included?.find((i) => i.type === "identityProvider" && i.id === idpId);
  if (idp !== undefined) {
    const a = idp.attributes ?? {};
    if (a.idpType === "DEX_IDP") return { kind: "builtin" };
    return {
      kind: "oidc",
      claim: a.oauthSubjectIdClaim || "sub",
      issuer: a.oauthIssuerLocation ?? undefined,
      from: "identityProvider",
    };
  }
  const a = doc.data.attributes ?? {};
  if (!a.oauthIssuerLocation) return { kind: "builtin" };
  return {
    kind: "oidc",
    claim: a.oauthSubjectIdClaim || "sub",
    issuer: a.oauthIssuerLocation,
    from: "organization",
  };
}

/** The organization's sign-in; `organizationId` when the profile was already read (not asked twice). */
export async function readSignIn(
  t: Transport,
  profilePath: string,
  organizationId?: string,
): Promise<OrganizationSignIn> {
  const id =
    organizationId ??
    (await t.request({ method: "GET", path: profilePath, mediaType: JSON_MEDIA, answer: PROFILE })).json
      .organizationId;
  const org = await t.request({
    method: "GET",
    path: `/api/v1/entities/admin/organizations/${encodeURIComponent(id)}?include=identityProvider`,
    mediaType: ENTITY_MEDIA,
    answer: ORGANIZATION,
  });
  return { ...signInOf(org.json), organizationId: id };
}

const PROVIDERS = z.looseObject({
  data: z.array(
    z.looseObject({
      id: z.string(),
      attributes: z.looseObject({ identifiers: z.array(z.string()).nullish() }).optional(),
    }),
  ),
});

/**
 * The e-mail domains the organization's identity providers claim (`identifiers`, OpenAPI
 * JsonApiIdentityProviderOut: "Users with email addresses belonging to these domains will be
 * authenticated by this IdP"), lower case, sorted. One GET: an organization has a few providers.
 */
export async function readIdentityProviderDomains(t: Transport): Promise<string[]> {
  const { json } = await t.request({
    method: "GET",
    path: "/api/v1/entities/identityProviders?size=1000",
    mediaType: ENTITY_MEDIA,
    answer: PROVIDERS,
  });
  const domains = json.data.flatMap((p) => p.attributes?.identifiers ?? []).map((d) => d.toLowerCase());
  return [...new Set(domains)].sort();
}
