/**
 * The Admin SDK Directory API as the reader uses it (discovery document admin:directory_v1):
 * lists carry their items under `groups` / `members` / `users` (absent when empty) and a
 * `nextPageToken`; the next page is the same request with `pageToken` (a token seen twice is a
 * loop: pages.ts refuses the repeated link). Every listing asks for the largest page the
 * discovery document allows and, through `fields=`, only what is used. Quota errors come as 403
 * or 429 with the reasons `userRateLimitExceeded` / `rateLimitExceeded` and are throttling
 * (paced run-wide by DirectoryHttp); a 401 mid-read gets one fresh token and one retry, a
 * second is a read not whole (exit 5), both DirectoryHttp's (`renew`); a 401 before any answer
 * and any other refusal is a setup error naming the fix (exit 4).
 */
import type { GoogleConfig } from "./schema.js";
import { DirectoryError } from "../../../errors.js";
import { NoSuchGroupError } from "../vanished-groups.js";
import type { DirectoryAnswer, DirectoryHttp } from "../directory-http.js";
import { DirectoryHttpError, SourceIncompleteError } from "../errors.js";
import { readAll, Tally, type PageRule } from "../pages.js";
import type { ReadTally } from "../contract.js";
import { GOOGLE_SCOPES } from "./credentials.js";

export const GOOGLE = "Google Directory API";

/** The largest pages admin-api.json allows: groups.list and members.list 200, users.list 500. */
export const PAGE = { groups: 200, members: 200, users: 500 } as const;

export const FIELDS = {
  group: "id,email,name,description",
  groups: "nextPageToken,groups(id,email,name,description)",
  members: "nextPageToken,members(id,email,type,status)",
  users: "nextPageToken,users(id,primaryEmail,name(givenName,familyName,fullName),suspended,archived)",
};

export interface GoogleGroupJson {
  id: string;
  email: string;
  name?: string;
  description?: string;
}
export interface GoogleMemberJson {
  id?: string;
  email?: string;
  type?: string;
  status?: string;
}
export interface GoogleUserJson {
  id: string;
  primaryEmail?: string;
  name?: { givenName?: string; familyName?: string; fullName?: string };
  suspended?: boolean;
  archived?: boolean;
}

const QUOTA_REASONS = new Set(["userRateLimitExceeded", "rateLimitExceeded", "quotaExceeded"]);

/** Google's `{error: {code, message, errors: [{reason}], status}}`, read defensively. */
export function googleError(body: unknown): { message: string; reason: string; status: string } {
  const e = (
    body as { error?: { message?: unknown; status?: unknown; errors?: { reason?: unknown }[] } } | undefined
  )?.error;
  const reason = Array.isArray(e?.errors)
    ? e.errors.map((x) => String(x?.reason ?? "")).find(Boolean)
    : undefined;
  return {
    message: typeof e?.message === "string" ? e.message : typeof body === "string" ? body.slice(0, 120) : "",
    reason: reason ?? "",
    status: typeof e?.status === "string" ? e.status : "",
  };
}

/** A 403 or 429 with a quota reason: throttling, not a refusal. */
export function isQuotaAnswer(a: DirectoryAnswer): boolean {
  return (a.status === 403 || a.status === 429) && QUOTA_REASONS.has(googleError(a.body).reason);
}

/** `{apiUrl}/admin/directory/v1/{path}?{query}`. */
export function directoryUrl(config: GoogleConfig, path: string, query: Record<string, string>): string {
  const q = Object.entries(query)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join("&");
  return `${config.apiUrl}/admin/directory/v1/${path}${q ? `?${q}` : ""}`;
}

/** The customer or domain a listing names: `customer=my_customer` unless configured. */
export function scopeQuery(config: GoogleConfig): Record<string, string> {
  return config.domain !== undefined
    ? { domain: config.domain }
    : { customer: config.customer ?? "my_customer" };
}

/** A listing's pages: items under `field`, the next page the same request with `pageToken`. */
function listRule(first: string, field: string, what: string): PageRule<Record<string, unknown>> {
  return {
    items(body) {
      const items = body[field];
      if (items === undefined) return [];
      if (!Array.isArray(items))
        throw new SourceIncompleteError({ read: what, reason: `a page's ${field} is not a list` });
      return items as unknown[];
    },
    next: (body) =>
      typeof body.nextPageToken === "string" && body.nextPageToken !== ""
        ? `${first}&pageToken=${encodeURIComponent(body.nextPageToken)}`
        : undefined,
    idOf: (item) => {
      const id = (item as { id?: unknown }).id;
      return typeof id === "string" ? id : undefined;
    },
  };
}

/** Every item of a listing, proved whole (pages.ts): every token followed, none twice, no id twice. */
export async function listAll(
  http: DirectoryHttp,
  first: string,
  field: string,
  what: string,
): Promise<{ items: unknown[]; tally: ReadTally }> {
  return readAll({
    first,
    rule: listRule(first, field, what),
    get: (url) => http.get<Record<string, unknown>>(url, what),
    tally: new Tally(what),
  });
}

/**
 * A refusal Google will give again until someone changes a setting: the fix, named (exit 4).
 * `about` is the setting at fault (`source.google.groups[1].email`), `what` the read in words.
 */
export function setupError(
  err: unknown,
  o: { config: GoogleConfig; what: string; actor: string; about?: string },
): unknown {
  if (!(err instanceof DirectoryHttpError)) return err;
  const { message, reason } = googleError(err.body);
  const said = `${GOOGLE} answered ${err.status}${reason ? ` ${reason}` : ""} to ${o.what}${message ? `: ${message}` : ""}`;
  let fix: string;
  if (err.status === 403 && /insufficient authentication scopes/i.test(message))
    fix = `the token lacks a scope: authorise ${GOOGLE_SCOPES.join(", ")} (domain-wide delegation's scope list, or the credentials' scopes)`;
  else if (err.status === 403 && /Not Authorized to access this resource/i.test(message))
    fix =
      o.config.subject !== undefined
        ? `source.google.subject (${o.config.subject}) is not a Workspace admin who may read users and groups: name an admin, or give that user an admin role with the privileges Users > Read and Groups > Read`
        : `the service account ${o.actor} holds no Workspace admin role: assign it a role with Users > Read and Groups > Read (Admin console > Account > Admin roles), or use domain-wide delegation with source.google.subject`;
  else if (err.status === 403 && /Admin SDK|has not been used|disabled/i.test(message))
    fix = "enable the Admin SDK API in the service account's Google Cloud project";
  else if (err.status === 404 && o.about !== undefined)
    fix = `Google has no such group: check ${o.about} (the group's email or id, from the Admin console)`;
  else if (err.status === 400 && /domain/i.test(message))
    fix = `the domain ${o.config.domain ?? ""} is not one of this Workspace's: check source.google.domain`;
  else if (
    err.status === 400 &&
    o.about !== undefined &&
    o.about.endsWith(".query") &&
    /invalid input/i.test(message)
  )
    fix = `Google rejected the group search: correct ${o.about} (e.g. email:analytics-*, name:'Sales Team'; developers.google.com/admin-sdk/directory/v1/guides/search-groups)`;
  else if (err.status === 400)
    fix = `check source.google.customer (${o.config.customer ?? "my_customer"}: my_customer, or the customer id C0… from Admin console > Account settings) or source.google.domain`;
  else if (err.status === 401)
    fix = `${GOOGLE} at ${o.config.apiUrl} refused the token it was given before accepting any: the credentials' token endpoint (token_uri, token_url) and source.google.apiUrl must be the same Google (not a stand-in's key with the real API, or the reverse); else the credentials file is not what it should be`;
  else fix = "check source.google and docs/google.md";
  const text = `${said}. Fix: ${fix} (docs/google.md)`;
  // A rule's group that Google does not have: a mistake, unless one that had members is gone.
  if (err.status === 404 && o.about !== undefined) return new NoSuchGroupError({ message: text });
  return new DirectoryError({ message: text });
}
