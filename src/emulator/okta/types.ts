/**
 * The Okta stand-in's data and options. Shapes follow Okta's published management OpenAPI
 * (okta/okta-management-openapi-spec, dist/2026.06.3/management-minimal.yaml): `User`
 * (`id`, `status`, `profile.login/email/firstName/lastName`), `Group` (`id`, `type`,
 * `profile.name/description`) and `Error` (`errorCode`, `errorSummary`, `errorLink`, `errorId`,
 * `errorCauses`).
 */

/** `UserStatus` in the spec, every value. */
export const OKTA_STATUSES = [
  "ACTIVE",
  "DEPROVISIONED",
  "LOCKED_OUT",
  "PASSWORD_EXPIRED",
  "PROVISIONED",
  "RECOVERY",
  "STAGED",
  "SUSPENDED",
] as const;
export type OktaStatus = (typeof OKTA_STATUSES)[number];

export interface OktaUser {
  id: string;
  status: OktaStatus;
  /** login, email, firstName, lastName and any custom attribute. */
  profile: Record<string, string | null>;
}

export interface OktaGroup {
  id: string;
  type?: "OKTA_GROUP" | "APP_GROUP" | "BUILT_IN";
  profile: { name: string; description?: string | null } & Record<string, string | null | undefined>;
  /** Member user ids (Okta has no nested groups: members are users only). */
  members: string[];
}

/** The largest pages: `limit` of listGroups has `maximum: 10000`; listGroupUsers names only `default: 1000`. */
export const MAX_GROUPS_PAGE = 10_000;
export const MAX_MEMBERS_PAGE = 1000;
/** listGroups: "The default limit for a query is 300 results" (`q` does not page). */
export const QUERY_LIMIT = 300;

/** A broken answer the stand-in gives instead of the real one. */
export type FaultKind =
  /** An HTML error page with status 200 (a proxy or captive portal). */
  | "html"
  /** The JSON array cut in the middle, status 200. */
  | "truncated"
  /** The right page, but its `next` link points at the page itself. */
  | "link-loop"
  /** The connection closed before the answer. */
  | "reset"
  /** An empty array and no next link (a group that suddenly reads empty). */
  | "empty"
  /** The caller's bearer token ends there (expired or revoked mid-read): 401 E0000011. */
  | "expire-token"
  /** 404 E0000007: the group was deleted a moment ago (after it was listed). */
  | 404
  | 500
  | 503
  /** The window spent by the organization's other integrations: 429 E0000047, Remaining 0. */
  | 429;

export interface Fault {
  /** Matches the request's path and query (`/api/v1/groups/00g1/users?limit=1000&after=00u5`). */
  match: RegExp;
  kind: FaultKind;
  /** How many matching requests get it (default: every one). */
  times?: number;
}

export interface ServiceApp {
  clientId: string;
  /** The app's public key (JWK), registered with Okta; the client assertion must verify with it. */
  publicJwk: Record<string, unknown>;
  /** The scopes granted to the app (okta.users.read, okta.groups.read, ...). */
  scopes: string[];
}

export interface OktaStandInOptions {
  users: OktaUser[];
  groups: OktaGroup[];
  /** Requests allowed per window in each rate-limit family, shared by every caller (default 600 a minute). */
  quota?: QuotaOptions;
  /** Requests answered at once before a 429 (Okta's concurrent rate limit); unset: no limit. */
  maxConcurrent?: number;
  /** How far the stand-in's clock (the `Date` and `X-Rate-Limit-Reset` headers) is off the local one. */
  clockSkewMs?: number;
  /** SSWS API tokens: every scope. */
  apiTokens?: string[];
  /** SSWS API tokens of an admin without the rights to read groups: 403 E0000006. */
  forbiddenTokens?: string[];
  serviceApps?: ServiceApp[];
  /** Lifetime of an issued access token (default 3600 s, as Okta's). */
  tokenSeconds?: number;
  faults?: Fault[];
  /** Milliseconds each /api/v1 answer waits (default 0). */
  latencyMs?: number;
}

/** Okta's rate limit per family of endpoints (quota.ts); families are named as in rate-families.ts. */
export interface QuotaOptions {
  /** Every family's limit per window, unless `families` says otherwise. */
  limit: number;
  windowSeconds: number;
  /** A family's own limit, window, and how far its windows start after the epoch's (so it resets at its own moment). */
  families?: Record<string, { limit?: number; windowSeconds?: number; offsetSeconds?: number }>;
  /** Another integration: the share (0 to 1) of each window of a family it spends as the window opens. */
  others?: Record<string, number>;
}

/** One window of a family's quota, as the stand-in counted it. */
export interface QuotaWindow {
  /** The rate-limit family (`/api/v1/groups/{id}/users`). */
  family: string;
  /** Epoch ms (server clock) the window started and ends. */
  start: number;
  end: number;
  limit: number;
  /** Requests the quota answered in this window, by us and by `spend()` (other integrations). */
  used: number;
  spentByOthers: number;
  /** Requests refused with 429 in this window. */
  refused: number;
}
