/**
 * Who signs in as whom (issue 28, point 3). With `attributes.authenticationId: auto` the reader
 * cannot know, from Entra alone, what a mapping's `authenticationId` must be: that is the claim
 * the organization keys users by, its `oauthSubjectIdClaim`. So the directory is read first (a
 * read that is not whole stops before any request to the service), and once connected the
 * source's sign-in step (../sign-in.ts) maps the organization's claim to a Graph property:
 *
 *   oid -> id · email -> mail · preferred_username, upn, unique_name -> userPrincipalName
 *
 * `sub` (the default) is pairwise per application: Graph cannot give it, so the run stops with
 * exit 4 and names the fix. An organization on the built-in identity provider keeps built-in logins.
 */
import { DirectoryError, InputError, type Problem } from "../../../errors.js";
import type { OrganizationSignIn } from "../../../service/types.js";
import type { SignInStep } from "../../types.js";
import type { GraphUserItem } from "./users.js";

export const CLAIM_PROPERTIES: Readonly<Record<string, string>> = {
  oid: "id",
  email: "mail",
  preferred_username: "userPrincipalName",
  upn: "userPrincipalName",
  unique_name: "userPrincipalName",
};

const FIX =
  "set the organization's oauthSubjectIdClaim to oid (PATCH /api/v1/entities/admin/organizations/{id}, or its identity provider's), " +
  "or name the Graph property that equals the claim in source.entra.attributes.authenticationId (docs/entra.md)";

/** The Graph property behind a claim; a DirectoryError naming the fix when Graph cannot give it. */
export function propertyForClaim(signIn: Extract<OrganizationSignIn, { kind: "oidc" }>): string {
  const property = CLAIM_PROPERTIES[signIn.claim.toLowerCase()];
  if (property !== undefined) return property;
  const where = signIn.from === "identityProvider" ? "its identity provider" : "the organization";
  throw new DirectoryError({
    message:
      signIn.claim === "sub"
        ? `the organization signs people in through ${signIn.issuer ?? "an OIDC provider"} and ${where} keys them by the claim sub (the default): Entra's sub is pairwise per application and cannot be read from Graph, so no mapping could ever match a login. Fix: ${FIX}`
        : `${where} keys users by the claim ${signIn.claim}, which usersync cannot map to a Graph property. Fix: ${FIX}`,
  });
}

/**
 * The sign-in step of a read with `authenticationId: auto` (SourceResult.signIn): sets each
 * person's identity and `authenticationId` from the Graph property behind the organization's
 * claim. `graphOf` holds the Graph user behind each desired user id; `source` names the tenant.
 */
export function entraSignIn(graphOf: ReadonlyMap<string, GraphUserItem>, source: string): SignInStep {
  return ({ signIn, users, defaultIdentity, logger }) => {
    if (signIn === undefined) {
      if (defaultIdentity === "builtin") return;
      throw new DirectoryError({
        message: `this service does not tell how its organization signs people in (no organization entity): name the Graph property that equals the login's claim in source.entra.attributes.authenticationId (e.g. id for oid)`,
      });
    }
    if (signIn.kind === "builtin") {
      logger.info(
        "the organization signs people in through the built-in identity provider: people get built-in logins",
      );
      return;
    }
    const property = propertyForClaim(signIn);
    logger.info(
      { claim: signIn.claim, property },
      `the organization keys logins by the claim ${signIn.claim}: authenticationId is each person's Graph ${property}`,
    );
    const problems: Problem[] = [];
    for (const user of users) {
      const graph = graphOf.get(user.id);
      if (graph === undefined) continue;
      const value = graph[property];
      if (typeof value !== "string" || value === "") {
        problems.push({
          file: `${source} user ${graph.id}`,
          field: property,
          rule: "required",
          message: `has no ${property}, which the claim ${signIn.claim} needs as authenticationId`,
        });
        continue;
      }
      user.identity = "external";
      user.authenticationId = value;
    }
    if (problems.length > 0)
      throw new InputError({
        message: `${problems.length} user(s) cannot sign in by ${signIn.claim}`,
        problems,
      });
  };
}
