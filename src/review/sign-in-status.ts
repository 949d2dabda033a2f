/**
 * How the service signs a mapping in (access-rules R15, R16; docs/audits.md "Statuses"): with a
 * built-in login (`active`); through an identity provider (`external`: the organization's own
 * provider, a provider whose `identifiers` claim the e-mail's domain, or the API token's own
 * user); not at all (`revoked`); or never, because an alphabetically earlier userId shares its
 * authenticationId (`shadowed`). The service's rules decide, not the desired state: a person the
 * source calls `identity: external` in an organization that signs in with its built-in provider
 * cannot sign in, and one it calls built-in in an organization that signs in through OIDC signs
 * in there. Only when the service did not say how it signs people in is the desired state's word
 * taken. And whether the source still has the person.
 */
import { compareIds as cmp } from "../permissions.js";
import type { DesiredUser } from "../desired/types.js";
import type { IdpUser, Mapping } from "../service/types.js";
import type { ReviewInput } from "./input.js";
import type { LoginStatus, ReviewPerson } from "./types.js";

const domainOf = (email: string | undefined): string | undefined => {
  const at = email?.lastIndexOf("@") ?? -1;
  return at < 0 ? undefined : email!.slice(at + 1).toLowerCase();
};

export function loginOf(
  input: ReviewInput,
  m: Mapping,
  idp: IdpUser | undefined,
  d: DesiredUser | undefined,
): LoginStatus {
  if (idp) return "active";
  if (m.id === input.actual.callerId) return "external";
  if (m.authenticationId === undefined) return "revoked";
  const domain = domainOf(m.email);
  if (domain !== undefined && (input.externalDomains ?? []).includes(domain)) return "external";
  if (input.actual.builtinIdp === false || input.signIn === "oidc") return "external";
  // Built-in sign-in: an authenticationId no built-in login holds signs nobody in (R16).
  if (input.signIn === "builtin") return "revoked";
  // The service did not say how it signs people in (legacy, or not read): the source's word.
  return d?.state === "present" && d.identity === "external" ? "external" : "revoked";
}

/**
 * The mappings the service never signs in (R15): of mappings sharing one authenticationId, every
 * one but the alphabetically first userId; each with the userId that signs in instead.
 */
export function shadowedMappings(mappings: readonly Mapping[]): Map<string, string> {
  const byAuth = new Map<string, string[]>();
  for (const m of mappings)
    if (m.authenticationId !== undefined)
      (byAuth.get(m.authenticationId) ?? byAuth.set(m.authenticationId, []).get(m.authenticationId)!).push(
        m.id,
      );
  const out = new Map<string, string>();
  for (const ids of byAuth.values()) {
    if (ids.length < 2) continue;
    const [first, ...rest] = [...ids].sort(cmp);
    for (const id of rest) out.set(id, first!);
  }
  return out;
}

/** Whether the compared source has the person: present, absent, or disabled (named among the accounts it skipped as disabled). */
export function sourceStatusOf(
  input: ReviewInput,
  d: DesiredUser | undefined,
  who: { id?: string | undefined; email?: string | undefined },
): ReviewPerson["sourceStatus"] {
  if (input.desired === undefined) return undefined;
  if (d?.state === "present") return "present";
  const disabled = (input.desired.state.evidence?.skipped ?? [])
    .filter((s) => /disabled/i.test(s.reason))
    .flatMap((s) => s.sample.map((x) => x.toLowerCase()));
  const names = [who.id, who.email].filter((x): x is string => x !== undefined).map((x) => x.toLowerCase());
  return names.some((n) => disabled.includes(n)) ? "disabled" : "absent";
}
