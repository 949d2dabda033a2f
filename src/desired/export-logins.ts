/**
 * Who an exported person is (issue 39): a mapping whose built-in login is gone was revoked, not an
 * SSO user, and an export must never write it back as someone who may sign in. The rule is the
 * access review's (its `LoginStatus`): a mapping linked to a built-in login is active; one with no
 * authenticationId, or whose authenticationId matches no built-in login in an organization that
 * signs people in with its built-in identity provider, is revoked; in an organization that signs
 * in through an external OIDC provider (or a service with no built-in provider) it is external.
 * When the service cannot say how it signs people in (legacy), such a mapping stays external, as
 * before: the safe side for a file that may be applied with `deletions: remove`.
 */
import type { IdpUser, Mapping, OrganizationSignIn } from "../service/types.js";

export type SignInKind = OrganizationSignIn["kind"];

export function loginOf(
  m: Pick<Mapping, "authenticationId">,
  idp: IdpUser | undefined,
  org: { builtinIdp: boolean; signIn: SignInKind | undefined },
): "active" | "revoked" | "external" {
  if (idp !== undefined) return "active";
  if (m.authenticationId === undefined) return "revoked";
  if (!org.builtinIdp || org.signIn === "oidc") return "external";
  return org.signIn === "builtin" ? "revoked" : "external";
}

export const revokedWarning = (n: number): string =>
  `${n} user(s) whose built-in login was revoked are exported as such: state: absent, with no groups, permissions or filters ` +
  "(the organization still has their mapping; read back with deletions: revoke, any access they still hold goes and nothing else, with deletions: remove their mapping goes)";
