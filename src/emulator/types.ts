/** Options of the local service emulator (DESIGN section 8). */
import type { SeedDataFilter } from "./filter-store.js";
import type { ApiProfile } from "../service/types.js";
import type { ResetHeaderMode } from "./rate-headers.js";

export interface EmulatorFaults {
  /** Fixed latency added to every answer, ms. */
  latencyMs?: number;
  /** Extra random latency, 0..jitterMs ms. */
  jitterMs?: number;
  /** Share (0..1) of requests answered 500. */
  error500?: number;
  /** Share (0..1) of requests answered 503. */
  error503?: number;
  /** Share (0..1) of requests answered 429 with `Retry-After` and an `{error, message}` body. */
  throttle429?: number;
  /** Seconds sent in `Retry-After` with injected 429s (default 1). */
  retryAfterSeconds?: number;
  /** Share (0..1) of requests whose socket is destroyed before any answer (nothing stored). */
  dropConnection?: number;
  /** Share (0..1) of writes (POST/PUT/PATCH/DELETE) that are carried out but whose answer is lost (socket destroyed). */
  loseAnswer?: number;
  /**
   * Fixed-window rate limit: at most `limit` requests per `windowSeconds`, with rate-limit headers
   * on every answer; over it, 429 with `Retry-After`. `resetHeader` picks the headers' convention
   * (see rate-headers.ts; default `delta`); the epoch forms align windows to the clock.
   */
  rateLimit?: { limit: number; windowSeconds: number; resetHeader?: ResetHeaderMode };
  /** A duplicate IdP create answers 400 "user already exists" instead of 409. */
  duplicateIdpAs400?: boolean;
  /** Only inject faults on requests whose path matches (default: all API paths). */
  pathPattern?: RegExp;
  /**
   * Successful answers broken the way gateways and single-page-app fallbacks break them (see
   * broken-answers.ts); the handler still runs, so a write lands. Rules are tried in order.
   */
  brokenAnswers?: BrokenAnswerRule[];
  /** Seed of the fault PRNG, so a run is repeatable. */
  seed?: number;
}

/**
 * `html` a 200 sign-in page; `dataNull` the JSON:API document with `data: null` (any other answer
 * becomes `{"data": null}`); `truncated` the first half of
 * the JSON; `oversize` the JSON padded to `bytes`; `repeatPage` every page of a listing is page 0;
 * `emptyPage` the pages between the first and the last have no items; `trickle` one byte every
 * `intervalMs`.
 */
export type BrokenAnswerMode =
  "html" | "dataNull" | "truncated" | "oversize" | "repeatPage" | "emptyPage" | "trickle";

export interface BrokenAnswerRule {
  mode: BrokenAnswerMode;
  /** Only answers to requests whose path matches (default: every faultable path). */
  pathPattern?: RegExp;
  /** The methods whose answers are broken (default `["GET"]`). */
  methods?: string[];
  /** Share (0..1) of the matching answers broken (default 1). */
  share?: number;
  /** `trickle`: milliseconds between bytes (default 500). */
  intervalMs?: number;
  /** `oversize`: the body's size in bytes (default 50 MiB). */
  bytes?: number;
}

export interface SeedIdpUser {
  email: string;
  displayName: string;
  authenticationId?: string;
  password?: string;
}

export interface SeedMapping {
  id: string;
  authenticationId?: string;
  firstname?: string;
  lastname?: string;
  email?: string;
  groups?: string[];
}

export interface SeedGroup {
  id: string;
  name?: string;
  parents?: string[];
}

/** Who holds a seeded permission: exactly one of a user (mapping id) or a user group. */
export interface SeedAssignee {
  user?: string;
  userGroup?: string;
}

/** A direct grant on a workspace (permission names as the official API spells them). */
export interface SeedWorkspaceGrant extends SeedAssignee {
  permissions?: string[];
  /** Permissions on the workspace and every workspace below it (`hierarchyPermissions`). */
  hierarchy?: string[];
}

export interface SeedWorkspace {
  id: string;
  name?: string;
  parent?: string;
  permissions?: SeedWorkspaceGrant[];
}

export interface SeedOrganizationPermission extends SeedAssignee {
  permissions: string[];
}

/** The emulator's store, as seeded, persisted and read back by tests. */
export interface EmulatorSeed {
  idpUsers?: SeedIdpUser[];
  mappings?: SeedMapping[];
  groups?: SeedGroup[];
  /** Workspaces (with their hierarchy and direct grants); left out of a snapshot when there are none. */
  workspaces?: SeedWorkspace[];
  organizationPermissions?: SeedOrganizationPermission[];
  /** User data filters, each on a seeded workspace and user or group (filter-store.ts). */
  dataFilters?: SeedDataFilter[];
  /** Users' own API tokens (api-token-routes.ts), by their ids; a token's value is never stored. */
  apiTokens?: SeedApiToken[];
  /**
   * How the organization signs people in (organization-seed.ts): read at every start, never
   * persisted (the emulator takes no writes of them). `startEmulator`'s `signIn` wins.
   */
  organization?: SeedOrganization;
  /** The organization's identity providers (`identityProvider` entities). */
  identityProviders?: SeedIdentityProvider[];
  /** The organization's settings (`organizationSettings`), e.g. JIT_PROVISIONING; the option wins. */
  organizationSettings?: EmulatorOrganizationSetting[];
}

export interface SeedApiToken {
  /** The user (mapping) id the token belongs to. */
  user: string;
  id: string;
}

/** The organization entity's sign-in attributes (official `metadata-json-api`, JsonApiOrganizationOut). */
export interface SeedOrganization {
  oauthIssuerLocation?: string;
  /** The ID-token claim that identifies a user; the service's default is `sub`. */
  oauthSubjectIdClaim?: string;
  /** The id of the identity provider (of `identityProviders`) the organization signs people in through. */
  identityProvider?: string;
}

/** An identity provider entity (official `metadata-json-api`, JsonApiIdentityProviderOut), its attributes flat. */
export interface SeedIdentityProvider {
  id: string;
  idpType?: "MANAGED_IDP" | "FIM_IDP" | "DEX_IDP" | "CUSTOM_IDP";
  /** Email domains whose users this provider signs in. */
  identifiers?: string[];
  oauthIssuerLocation?: string;
  oauthSubjectIdClaim?: string;
  oauthClientId?: string;
  oauthIssuerId?: string;
  customClaimMapping?: Record<string, string>;
}

/**
 * How the organization signs people in (organization-route.ts): unset, through the built-in
 * identity provider; with an issuer, through an external OIDC provider whose ID-token claim
 * `oauthSubjectIdClaim` (default `sub`) identifies the user. `identityProvider` is the
 * organization's identityProvider entity, which wins when set.
 */
export interface EmulatorSignIn {
  oauthIssuerLocation?: string;
  oauthSubjectIdClaim?: string;
  identityProvider?: SeedIdentityProvider;
}

/** An organization setting (`organizationSettings` entity): its type and free-form content, as the official OpenAPI has it. */
export interface EmulatorOrganizationSetting {
  id: string;
  type: string;
  content: Record<string, unknown>;
}

export interface EmulatorOptions {
  /** 0 = a free port. Always listens on 127.0.0.1. */
  port?: number;
  host?: "127.0.0.1";
  /**
   * Which API paths are served, all on one store: `v1` (`/api/v1/...`), `legacy` (`/api/auth/...`,
   * `/api/entities/...`) or `both` (default). A path of the profile not served answers 404.
   */
  profile?: ApiProfile | "both";
  /** Bearer tokens accepted, each mapped to the user id `/api/v1/profile` returns. Default `{ "dev-token": "admin" }`. */
  tokens?: Record<string, string>;
  /**
   * As in the service, a token belongs to a user of the organization: each token's owner the seed
   * does not map is mapped at start (no credentials, no groups). Default true; false leaves the
   * store exactly as seeded (tests of the entity API, or of a caller no mapping matches).
   */
  mapTokenOwners?: boolean;
  /** Tokens that authenticate but may not manage users: every API request answers 403 problem details. */
  forbiddenTokens?: string[];
  /** Tokens that have expired: 401 with an empty body and `WWW-Authenticate: Bearer error="invalid_token"`. */
  expiredTokens?: string[];
  seed?: EmulatorSeed;
  faults?: EmulatorFaults;
  /** JSON file the store is loaded from (if it exists) and written to, atomically, after each write. */
  persistPath?: string;
  /**
   * Serve the built-in identity provider (`/api/v1/auth/users`, legacy `/api/auth/users`).
   * Default true; false answers 404 there, like a deployment that signs everyone in through an
   * external OIDC provider.
   */
  builtinIdp?: boolean;
  /**
   * The userManagement actions of bulk membership (`.../userGroups/{id}/addMembers`,
   * `removeMembers`, `members`, `.../removeUsersUserGroups`): `on` (default) serves them; 404 or
   * 405 answers every request there with that status, like an older service or a proxy that
   * forbids them.
   */
  userManagement?: "on" | 404 | 405;
  /** How the organization signs people in (`GET /api/v1/entities/admin/organizations/{id}`). */
  signIn?: EmulatorSignIn;
  /**
   * The organization's id, as `GET /api/v1/profile` (`organizationId`) and the organization
   * entity name it. Default `emulated-org`; two emulators of one test may be two organizations.
   */
  organizationId?: string;
  /** The organization's settings (`GET /api/v1/entities/organizationSettings`), e.g. JIT_PROVISIONING. */
  organizationSettings?: EmulatorOrganizationSetting[];
  /** Keep the last N requests in the request log (default 100000). */
  requestLogLimit?: number;
  /**
   * Called once per request after its handler ran and before it is answered: the store then holds
   * exactly what that request left (tests check an invariant between two writes).
   */
  onRequest?: (entry: RequestLogEntry) => void;
}

export interface RequestLogEntry {
  method: string;
  /** Path and query string. */
  url: string;
  status: number;
  /** The fault injected, if any. */
  fault?: "500" | "503" | "429" | "drop" | "lose" | "rateLimit" | BrokenAnswerMode;
  /** Parsed JSON body, with any `password` member replaced by "***". */
  body?: unknown;
  /** Arrival time, epoch ms. */
  time: number;
}

export interface EmulatorCounters {
  requests: number;
  byMethod: Record<string, number>;
  byStatus: Record<string, number>;
  faults: Record<string, number>;
}

export interface StoredIdpUser {
  email: string;
  displayName: string;
  authenticationId: string;
  /** Present for tests that check a password was set; never served. */
  password?: string;
}

export interface EmulatorState {
  idpUsers: StoredIdpUser[];
  mappings: Array<SeedMapping & { groups: string[] }>;
  groups: Array<SeedGroup & { parents: string[] }>;
  workspaces?: SeedWorkspace[];
  organizationPermissions?: SeedOrganizationPermission[];
  dataFilters?: SeedDataFilter[];
  apiTokens?: SeedApiToken[];
}

export interface EmulatorHandle {
  /** e.g. `http://127.0.0.1:41234` */
  url: string;
  port: number;
  /** A deep copy of the store, sorted by key. */
  state(): EmulatorState;
  counters(): EmulatorCounters;
  requestLog(): RequestLogEntry[];
  /** Clears the request log and counters. */
  resetLog(): void;
  /** Changes fault injection at run time (e.g. to stop faults before a verification run). */
  setFaults(faults: EmulatorFaults): void;
  close(): Promise<void>;
}
