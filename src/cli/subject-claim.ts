/**
 * Who signs in as whom, for a directory that can re-key its people (`keyBySubjectClaim`, Okta):
 * once connected, and after the whole directory was read, the organization's claim
 * (`oauthSubjectIdClaim`, ServiceClient.signIn) decides each external user's authenticationId.
 */
import type { Logger } from "pino";
import type { DesiredState } from "../desired/index.js";
import type { ServiceClient } from "../service/index.js";

export async function keyBySignIn(
  desired: DesiredState,
  client: ServiceClient,
  logger: Logger,
): Promise<void> {
  if (desired.keyBySubjectClaim === undefined) return;
  const signIn = client.signIn ? await client.signIn() : undefined;
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
  desired.keyBySubjectClaim(signIn.claim);
}
