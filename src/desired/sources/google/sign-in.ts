/**
 * Who signs in as whom (DESIGN section 9). With Google as the organization's OIDC provider, the
 * ID token's `sub` is the Google user `id`, which the reader puts in `authenticationId`. When the
 * organization keys people by `email`, each person's `authenticationId` becomes their primary
 * email (what Google's `email` claim carries). Any other claim cannot be read from the Directory
 * API: exit 4, naming the claim and the fix. The step itself is the sources room's
 * (../sign-in.ts); here only Google's claims.
 */
import { DirectoryError } from "../../../errors.js";
import type { SignInStep } from "../../types.js";
import { subjectClaimStep, type SubjectClaims } from "../sign-in.js";
import type { GoogleUserJson } from "./api.js";

const GOOGLE_CLAIMS: SubjectClaims<GoogleUserJson> = {
  directory: "Google",
  subWarning:
    "Google's people are mapped by their sub claim (the Google user id), which matches only once Google is the organization's OIDC provider",
  idOf: (u) => u.id,
  reader: (claim) => {
    if (claim === "sub") return undefined; // the Google user id, already in place
    if (claim === "email")
      return { from: "the primary email", field: "primaryEmail", read: (u) => u.primaryEmail };
    throw new DirectoryError({
      message: `the organization keys people by the ID-token claim "${claim}" (oauthSubjectIdClaim), which the Google Directory API cannot give: Google's ID token carries sub (the Google user id) and email (the primary email). Set oauthSubjectIdClaim to sub (recommended: it never changes) or email (docs/google.md)`,
    });
  },
  fix: () => "Give every person a primary email, or set oauthSubjectIdClaim to sub (docs/google.md)",
};

/**
 * The Google source's sign-in step (SourceResult.signIn): people stay keyed by `sub` (their
 * Google id) unless the organization names `email`. `googleOf` holds the Google user behind each
 * desired user id.
 */
export function googleSignIn(googleOf: ReadonlyMap<string, GoogleUserJson>): SignInStep {
  return subjectClaimStep(GOOGLE_CLAIMS, googleOf);
}
