/**
 * Okta's answers as the reader uses them: lists are JSON arrays, the next page is the `Link`
 * header whose `rel` is `next` (followed verbatim), and a request no retry fixes comes back as
 * Okta's error body (`errorCode`, `errorSummary`), which `setupError` turns into the fix to make.
 */
import { NoSuchGroupError } from "../vanished-groups.js";
import { DirectoryError } from "../../../errors.js";
import { DirectoryHttpError, SourceIncompleteError } from "../errors.js";
import type { PageRule } from "../pages.js";
import { OKTA_SCOPES } from "./credentials.js";

export interface OktaUserJson {
  id: string;
  status: string;
  profile: Record<string, unknown>;
}

export interface OktaGroupJson {
  id: string;
  type?: string;
  profile: Record<string, unknown> & { name?: unknown };
}

/** The largest pages the management OpenAPI allows: listGroups `maximum: 10000`; listGroupUsers names `default: 1000` and no larger. */
export const GROUPS_PAGE = 10_000;
export const MEMBERS_PAGE = 1000;

/** `<https://…>; rel="next"` among the Link values (Okta sends `self` and `next`; undici joins them with ", "). */
export function nextLink(headers: Readonly<Record<string, string>>): string | undefined {
  const link = headers["link"];
  if (link === undefined) return undefined;
  for (const m of link.matchAll(/<([^>]*)>\s*;([^<]*)/g))
    if (/\brel\s*=\s*"?next"?/i.test(m[2]!)) return m[1];
  return undefined;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null;

/** A list answer: an array of objects, each with a string id and a profile object. */
export function listRule<T extends { id: string }>(what: string): PageRule<unknown> {
  return {
    items(body) {
      const refuse = (reason: string) => new SourceIncompleteError({ read: what, reason });
      if (!Array.isArray(body)) throw refuse("a page is not a JSON array");
      for (const item of body)
        if (!isObject(item) || typeof item.id !== "string" || !isObject(item.profile))
          throw refuse("a page lists an entry without an id or a profile");
      return body as T[];
    },
    next: (_body, headers) => nextLink(headers),
    idOf: (item) => (item as T).id,
  };
}

/** Okta's error body, read defensively. */
function oktaError(body: unknown): { code: string; summary: string } {
  const b = isObject(body) ? body : {};
  return {
    code: typeof b.errorCode === "string" ? b.errorCode : "",
    summary:
      typeof b.errorSummary === "string" ? b.errorSummary : typeof body === "string" ? body.slice(0, 80) : "",
  };
}

/**
 * A request Okta refused for good: a DirectoryError (exit 4) that says what to fix. `what` names
 * the read (`members of Okta group 00g…`), `unknown` what a 404 means for it.
 */
export function setupError(err: unknown, o: { what: string; orgUrl: string; unknown?: string }): unknown {
  if (!(err instanceof DirectoryHttpError)) return err;
  const { code, summary } = oktaError(err.body);
  const said = `${err.method} ${err.path} answered ${err.status}${code ? ` ${code}` : ""}${summary ? ` (${summary})` : ""}`;
  const fix =
    code === "E0000011"
      ? "the token is invalid, expired or revoked: check source.okta.credentials (a new API token, or the service app's client id and key)"
      : code === "E0000006"
        ? `the credentials may not read this: grant the service app the scopes ${OKTA_SCOPES.join(" and ")} and an admin role that can read groups and users (Read-only Administrator), or use an API token of such an admin`
        : code === "E0000007"
          ? (o.unknown ?? "Okta has no such object")
          : code === "E0000031"
            ? "Okta rejected the search expression: check the group rule's search (developer.okta.com/docs/api/#filter)"
            : !code
              ? `this does not look like an Okta org's API: check source.okta.orgUrl (${o.orgUrl}), e.g. https://<your-org>.okta.com`
              : "see Okta's error code in its documentation";
  const message = `${o.what}: ${said}: ${fix} (docs/okta.md)`;
  // A rule's group that Okta does not have: a mistake, unless one that had members is gone.
  if (code === "E0000007" && o.unknown !== undefined) return new NoSuchGroupError({ message });
  return new DirectoryError({ message });
}
