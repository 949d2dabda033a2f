/**
 * Who signs in as whom (DESIGN section 9). With Okta as the organization's OIDC provider, the ID
 * token's `sub` is the Okta user id, which is what the reader puts in `authenticationId`. When the
 * organization keys people by another claim (`oauthSubjectIdClaim`), each person's
 * `authenticationId` becomes the profile attribute Okta fills that claim from: the standard
 * claims' attributes (`email`, `preferred_username` = `login`, ...), else the attribute of the
 * claim's own name (a custom claim). A person without it cannot be keyed: exit 4, naming both.
 * The step itself is the sources room's (../sign-in.ts); here only Okta's claims.
 */
import type { SignInStep } from "../../types.js";
import { subjectClaimStep, type SubjectClaims } from "../sign-in.js";
import type { OktaUserJson } from "./api.js";

/** Okta's mapping of the standard OIDC claims to profile attributes. */
const STANDARD_CLAIMS: Record<string, string> = {
  email: "email",
  preferred_username: "login",
  given_name: "firstName",
  family_name: "lastName",
  name: "displayName",
  nickname: "nickName",
  locale: "locale",
  zoneinfo: "timezone",
};

export function oktaAttributeOf(claim: string): string | undefined {
  return claim === "sub" ? undefined : (STANDARD_CLAIMS[claim] ?? claim);
}

const OKTA_CLAIMS: SubjectClaims<OktaUserJson> = {
  directory: "Okta",
  subWarning:
    "the directory's people are mapped by their sub claim (the directory's user id), which matches only once the directory is the organization's OIDC provider",
  idOf: (u) => u.id,
  reader: (claim) => {
    const attribute = oktaAttributeOf(claim);
    if (attribute === undefined) return undefined; // `sub` is the Okta id, already in place
    return {
      from: `the profile attribute ${attribute}`,
      field: attribute,
      read: (u) => u.profile[attribute],
    };
  },
  fix: (attribute) =>
    `Set oauthSubjectIdClaim to sub (the Okta user id, the default) or give every person ${attribute} in Okta (docs/okta.md)`,
};

/**
 * The Okta source's sign-in step (SourceResult.signIn): people stay keyed by `sub` (their Okta id)
 * unless the organization names another claim. `oktaOf` holds the Okta user behind each desired user id.
 */
export function oktaSignIn(oktaOf: ReadonlyMap<string, OktaUserJson>): SignInStep {
  return subjectClaimStep(OKTA_CLAIMS, oktaOf);
}
