/**
 * The Google Workspace stand-in's data and options (server.ts). Shapes follow the Admin SDK
 * Directory API discovery document, `admin/directory/v1/admin-api.json` in
 * googleapis/google-api-go-client (commit 04b26a7, revision 20250101-ish; read, never copied):
 * `User` (id, primaryEmail, name.givenName/familyName/fullName, suspended, archived), `Group` (id,
 * email, name, description, directMembersCount), `Member` (id, email, role, type, status), the
 * lists `Users`/`Groups`/`Members` with `nextPageToken`, and the error body
 * `{error: {code, message, errors: [{reason, domain, message}], status}}`.
 */

export interface GoogleUser {
  id: string;
  primaryEmail: string;
  name: { givenName?: string; familyName?: string; fullName?: string };
  suspended?: boolean;
  archived?: boolean;
  isAdmin?: boolean;
}

/** A group's direct member: a user or a group by id (its email comes from the store), or a customer. */
export interface GoogleMemberRef {
  id: string;
  type: "USER" | "GROUP" | "CUSTOMER";
  /** A user outside the customer (EXTERNAL): listed, never in users.list. */
  email?: string;
  status?: string;
  role?: "OWNER" | "MANAGER" | "MEMBER";
}

export interface GoogleGroup {
  id: string;
  email: string;
  name: string;
  description?: string;
  members: GoogleMemberRef[];
}

/** A service account's key as Google knows it: the public half, and what the admin granted it. */
export interface StandInServiceAccount {
  clientEmail: string;
  /** PEM (SPKI) of the key's public half, to check the JWT-bearer assertion. */
  publicKeyPem: string;
  /** The client id domain-wide delegation was authorised for, with these scopes (admin console). */
  delegatedScopes?: string[];
  /** The service account itself holds a Workspace admin role (no delegation needed). */
  adminRole?: boolean;
}

/** Workload identity federation: the pool provider and who may use it. */
export interface StandInFederation {
  /** `//iam.googleapis.com/projects/N/locations/global/workloadIdentityPools/P/providers/K`. */
  audience: string;
  /** Accepted `sub` claims of the projected Kubernetes token (`system:serviceaccount:ns:name`). */
  subjects: string[];
  /** Service accounts the federated principal may impersonate (roles/iam.workloadIdentityUser). */
  impersonate: string[];
}

export type GoogleFaultKind =
  | "quota" // 403 userRateLimitExceeded
  | "rate" // 429 rateLimitExceeded
  | 500
  | 503
  | "reset"
  | "truncated"
  | "html"
  | "repeat-token" // the next page token is the one just used (on a first page: one that serves it again)
  | "expired" // 401: the token is no longer valid
  | "revoked" // every token issued so far stops working, and this request gets the 401
  | "empty" // a list page with no items and no nextPageToken
  | "not-found"; // 404 notFound: the group was deleted a moment ago (after it was looked up)

export interface GoogleFault {
  /** Matched against the request's path and query. */
  match: RegExp;
  kind: GoogleFaultKind;
  /** How many times (default: every matching request). */
  times?: number;
}

export interface GoogleStandInOptions {
  /** How long the Reports API holds an admin event back before reporting it (reports.ts; default 0). */
  reportLagMs?: number;
  customerId: string;
  domain: string;
  users: GoogleUser[];
  groups: GoogleGroup[];
  serviceAccounts: StandInServiceAccount[];
  federation?: StandInFederation;
  tls?: { key: string | Buffer; cert: string | Buffer };
  tokenSeconds?: number;
  latencyMs?: number;
  faults?: GoogleFault[];
  /** Per principal, requests per window (Google's per-user-per-project quota). */
  quota?: { limit: number; windowMs: number };
  /** Stops by itself after this long without a request (default 10 minutes). */
  idleMs?: number;
  /** Default 0: a free port. */
  port?: number;
}
