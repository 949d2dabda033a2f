/**
 * Who signs in as whom (DESIGN section 9). With Google as the organization's OIDC provider, the
 * ID token's `sub` is the Google user `id`, which the reader puts in `authenticationId`. When the
 * organization keys people by `email`, each person's `authenticationId` becomes their primary
 * email (what Google's `email` claim carries). Any other claim cannot be read from the Directory
 * API: exit 4, naming the claim and the fix.
 */
import { DirectoryError } from "../../../errors.js";
import type { DesiredUser, SignInStep } from "../../types.js";
import type { GoogleUserJson } from "./api.js";

/**
 * The Google source's sign-in step (SourceResult.signIn): people stay keyed by `sub` (their
 * Google id) unless the organization names `email`. `googleOf` holds the Google user behind each
 * desired user id.
 */
export function googleSignIn(googleOf: ReadonlyMap<string, GoogleUserJson>): SignInStep {
  return ({ signIn, users, logger }) => {
    if (signIn === undefined || signIn.kind === "builtin") {
      logger.warn(
        `${signIn ? "the organization signs people in with its built-in identity provider" : "this service does not tell how its organization signs people in"}: Google's people are mapped by their sub claim (the Google user id), which matches only once Google is the organization's OIDC provider`,
      );
      return;
    }
    logger.info(
      { claim: signIn.claim, issuer: signIn.issuer },
      `the organization keys logins by the claim ${signIn.claim}`,
    );
    keyBySubjectClaim({ claim: signIn.claim, users, googleUserOf: (u) => googleOf.get(u.id) });
  };
}

export function keyBySubjectClaim(o: {
  claim: string;
  users: readonly DesiredUser[];
  googleUserOf: (user: DesiredUser) => GoogleUserJson | undefined;
}): void {
  if (o.claim === "sub") return; // the Google user id, already in place
  if (o.claim !== "email")
    throw new DirectoryError({
      message: `the organization keys people by the ID-token claim "${o.claim}" (oauthSubjectIdClaim), which the Google Directory API cannot give: Google's ID token carries sub (the Google user id) and email (the primary email). Set oauthSubjectIdClaim to sub (recommended: it never changes) or email (docs/google.md)`,
    });
  const missing: string[] = [];
  for (const user of o.users) {
    if (user.identity !== "external" || user.state !== "present") continue;
    const email = o.googleUserOf(user)?.primaryEmail;
    if (typeof email === "string" && email !== "") user.authenticationId = email;
    else missing.push(user.email);
  }
  if (missing.length > 0)
    throw new DirectoryError({
      message: `the organization keys people by the claim email, but ${missing.length} Google people have no primary email: ${missing.slice(0, 5).join(", ")} (docs/google.md)`,
    });
}
