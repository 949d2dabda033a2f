/**
 * Who signs in as whom (DESIGN section 9). With Okta as the organization's OIDC provider, the ID
 * token's `sub` is the Okta user id, which is what the reader puts in `authenticationId`. When the
 * organization keys people by another claim (`oauthSubjectIdClaim`), each person's
 * `authenticationId` becomes the profile attribute Okta fills that claim from: the standard
 * claims' attributes (`email`, `preferred_username` = `login`, ...), else the attribute of the
 * claim's own name (a custom claim). A person without it cannot be keyed: exit 4, naming both.
 */
import { DirectoryError } from "../../../errors.js";
import type { DesiredUser, SignInStep } from "../../types.js";
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

/**
 * The Okta source's sign-in step (SourceResult.signIn): people stay keyed by `sub` (their Okta id)
 * unless the organization names another claim. `oktaOf` holds the Okta user behind each desired user id.
 */
export function oktaSignIn(oktaOf: ReadonlyMap<string, OktaUserJson>): SignInStep {
  return ({ signIn, users, logger }) => {
    if (signIn === undefined || signIn.kind === "builtin") {
      logger.warn(
        `${signIn ? "the organization signs people in with its built-in identity provider" : "this service does not tell how its organization signs people in"}: the directory's people are mapped by their sub claim (the directory's user id), which matches only once the directory is the organization's OIDC provider`,
      );
      return;
    }
    logger.info(
      { claim: signIn.claim, issuer: signIn.issuer },
      `the organization keys logins by the claim ${signIn.claim}`,
    );
    keyBySubjectClaim({ claim: signIn.claim, users, oktaUserOf: (u) => oktaOf.get(u.id) });
  };
}

/** Re-keys every external user by the organization's claim; throws DirectoryError naming who cannot be. */
export function keyBySubjectClaim(o: {
  claim: string;
  users: readonly DesiredUser[];
  oktaUserOf: (user: DesiredUser) => OktaUserJson | undefined;
}): void {
  const attribute = oktaAttributeOf(o.claim);
  const external = o.users.filter((u) => u.identity === "external" && u.state === "present");
  if (attribute === undefined) return; // `sub` is the Okta id, already in place
  const missing: string[] = [];
  for (const user of external) {
    const okta = o.oktaUserOf(user);
    const value = okta?.profile[attribute];
    if (typeof value === "string" && value.trim() !== "") user.authenticationId = value.trim();
    else missing.push(`${user.email} (${okta?.id ?? "?"})`);
  }
  if (missing.length === 0) return;
  throw new DirectoryError({
    message: `the organization keys people by the ID-token claim "${o.claim}" (oauthSubjectIdClaim), which Okta fills from the profile attribute ${attribute}, but ${missing.length} of ${external.length} Okta people have no ${attribute}: ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ", …" : ""}. Set oauthSubjectIdClaim to sub (the Okta user id, the default) or give every person ${attribute} in Okta (docs/okta.md)`,
  });
}
