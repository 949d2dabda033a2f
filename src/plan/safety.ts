/**
 * Scope and protection: which actual objects the planner may touch. Patterns are compiled once
 * into one regular expression each, because they are tested for every user of a large org.
 */
import type { DesiredUser } from "../desired/types.js";
import type { IdpUser, Mapping } from "../service/types.js";
import { builtinProtected, type Policy } from "./policy.js";

/** `*` any run of characters, `?` one character; everything else literal. */
export function globSource(glob: string): string {
  let out = "";
  for (const ch of glob) {
    if (ch === "*") out += ".*";
    else if (ch === "?") out += ".";
    else out += ch.replace(/[.+^${}()|[\]\\/-]/g, "\\$&");
  }
  return out;
}

function compile(globs: readonly string[], flags: string): RegExp | undefined {
  if (globs.length === 0) return undefined;
  return new RegExp(`^(?:${globs.map(globSource).join("|")})$`, flags);
}

export const emailDomain = (email: string): string => {
  const at = email.lastIndexOf("@");
  return at < 0
    ? ""
    : email
        .slice(at + 1)
        .trim()
        .toLowerCase();
};

export interface Safety {
  /** True when any of the names (ids or emails) matches a protected pattern. */
  isProtected(names: ReadonlyArray<string | undefined>): boolean;
  /** The same for one name, without building a list (the per-mapping pass of a large org). */
  protectedName(name: string | undefined): boolean;
  groupProtected(id: string): boolean;
  desiredInScope(user: DesiredUser, groups: readonly string[]): boolean;
  /** An actual mapping, judged by its own attributes and the IdP user it points at. */
  mappingInScope(mapping: Mapping, linked: IdpUser | undefined): boolean;
  /** An IdP user no mapping points at: only `emailDomains` can put it in scope. */
  idpInScope(user: IdpUser): boolean;
  groupInScope(id: string): boolean;
}

export function makeSafety(policy: Policy, callerId: string | undefined): Safety {
  const protect = compile(
    [...builtinProtected, ...policy.protect, ...(callerId !== undefined ? [globEscape(callerId)] : [])],
    "i",
  );
  const ids = compile(policy.scope.idPatterns ?? [], "");
  const domains = new Set((policy.scope.emailDomains ?? []).map((d) => d.trim().toLowerCase()));
  const scopeGroups = new Set(policy.scope.groups ?? []);
  const everything = ids === undefined && domains.size === 0 && scopeGroups.size === 0;

  const byId = (id: string): boolean => ids !== undefined && ids.test(id);
  const byEmail = (email: string | undefined): boolean =>
    email !== undefined && domains.size > 0 && domains.has(emailDomain(email));
  const byGroups = (groups: readonly string[]): boolean =>
    scopeGroups.size > 0 && groups.some((g) => scopeGroups.has(g));

  const protectedName = (n: string | undefined): boolean =>
    n !== undefined && protect !== undefined && protect.test(n.trim());
  return {
    isProtected: (names) => names.some(protectedName),
    protectedName,
    groupProtected: (id) => protect !== undefined && protect.test(id),
    desiredInScope: (u, groups) => everything || byId(u.id) || byEmail(u.email) || byGroups(groups),
    mappingInScope: (m, linked) =>
      everything || byId(m.id) || byEmail(m.email) || byEmail(linked?.email) || byGroups(m.groups),
    idpInScope: (u) => everything || byEmail(u.email),
    groupInScope: (id) => scopeGroups.size === 0 || scopeGroups.has(id),
  };
}

/** `permissions.workspaces` as a test of one workspace id (globs; `*` is every workspace, none: no workspace). */
export function workspaceMatcher(globs: readonly string[]): (id: string) => boolean {
  const re = compile(globs, "");
  return (id) => re !== undefined && re.test(id);
}

/** The caller's id is a literal, not a pattern. */
function globEscape(id: string): string {
  return id.replace(/[*?]/g, "");
}
