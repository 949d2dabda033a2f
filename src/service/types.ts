/**
 * The actual state as the service reports it, and the client interface the rest of the
 * program uses. Everything above `src/service/` talks to the service only through `ServiceClient`.
 */

import type {
  ActualPermissions,
  Assignee,
  OrganizationAssignment,
  Workspace,
  WorkspaceAssignment,
  WorkspaceGrant,
} from "../permissions.js";

import type { ActualDataFilter, ActualDataFilters, DataFilter } from "../data-filters.js";

export type ApiProfile = "v1" | "legacy";

/** A user of the built-in identity provider (credentials). Never carries a password. */

export interface IdpUser {
  email: string;
  displayName: string;
  authenticationId: string;
}

/** An organization user mapping (entity `user`). */
export interface Mapping {
  id: string;
  authenticationId?: string;
  /** v1 only */
  firstname?: string;
  /** v1 only */
  lastname?: string;
  /** v1 only */
  email?: string;
  /** Group ids, sorted. Legacy: at most one. */
  groups: string[];
}

export interface UserGroup {
  id: string;
  name?: string;
  /** Parent group ids, sorted (v1; legacy has none). */
  parents: string[];
}

export interface ActualState {
  idpUsers: IdpUser[];
  mappings: Mapping[];
  groups: UserGroup[];
  /** The token owner's user id (`GET /api/v1/profile`), when the profile tells it. */
  callerId?: string;
  /** The organization's id (`GET /api/v1/profile`, `organizationId`), when the profile tells it. */
  organizationId?: string;
  /**
   * False when the service has no built-in identity provider: its user listing answered 404
   * (a deployment where everyone signs in through an external OIDC provider).
   */
  builtinIdp?: false;
  /**
   * How the organization signs people in (`OrganizationSignIn.kind`), read only when a run may
   * revoke someone whose mapping points at no built-in login (cli/pipeline.ts): `oidc` means such
   * a person may still sign in through the identity provider, so `deletions: revoke` takes their
   * access away (plan/revoke-access.ts); unset where the API cannot tell (legacy).
   */
  signIn?: "builtin" | "oidc";
  /**
   * False when the service has no bulk membership endpoints (`userManagement` `addMembers` /
   * `removeMembers`): a probe of a group's members answered 404 or 405. The planner then moves
   * people between groups with one mapping PUT each.
   */
  bulkMembership?: false;
  /** Workspaces and grants, listed only when the run manages permissions (src/permissions.ts). */
  permissions?: ActualPermissions;
  /** The filters of the in-scope workspaces, listed only when the run manages data filters. */
  dataFilters?: ActualDataFilters;
  /** Set when the organization provisions people at sign-in (service/jit.ts); read for directory sources. */
  jit?: JitProvisioning;
  /**
   * The API token ids of the people a plan revokes, by user id (service/api-tokens.ts): listed
   * only for them (cli/leaver-tokens.ts), never for everyone; a user not in it holds none known.
   */
  apiTokens?: ReadonlyMap<string, readonly string[]>;
}

/** The organization's just-in-time provisioning settings that are on, and the groups they name. */
export interface JitProvisioning {
  /** `JIT_PROVISIONING`, `JWT_JIT_PROVISIONING`, sorted. */
  settings: string[];
  /** Group ids the settings' content names: set by the service at sign-in too. Sorted. */
  groups: string[];
}

export interface NewIdpUser {
  email: string;
  displayName: string;
  /** Never logged. */
  password?: string;
}

/** The answer to a create: `created` with the server's object, or `exists` (409 / 400 "user already exists"). */
export type CreateResult<T> = { status: "created"; value: T } | { status: "exists" };

export type DeleteResult = "deleted" | "notFound";

/**
 * The answer to a bulk membership request: `done` (204 / 200), `notFound` (404: no such group,
 * an unknown member, or no such endpoint; the caller tells them apart), `unavailable` (405, or a
 * profile without these endpoints: nothing was sent).
 */
export type MembersResult = "done" | "notFound" | "unavailable";

/** A group's members as read back: the user ids, sorted, or why there are none to read. */
export type MembersRead = { status: "read"; members: string[] } | { status: "notFound" | "unavailable" };

export interface ClientStats {
  /** HTTP requests sent, counting every attempt. */
  requests: number;
  /** Attempts after the first one. */
  retries: number;
  /** 429 answers received. */
  throttled: number;
}

/** Per-call options of the write methods. */
export interface CallOptions {
  /** Called before every attempt (1, 2, ...), so the executor can report attempts per step. */
  onAttempt?: (attempt: number) => void;
}

/** Workspace and organization permissions (profile v1; see service/permissions-api.ts). */
export interface PermissionsClient {
  listWorkspaces(): Promise<Workspace[]>;
  /** Every direct grant on one workspace (its declarative layout). */
  getWorkspacePermissions(workspaceId: string): Promise<WorkspaceAssignment[]>;
  /** Every user's or group's direct grants (the userManagement listing). */
  listAssigneePermissions(type: Assignee["type"]): Promise<WorkspaceAssignment[]>;
  getUserPermissions(userId: string): Promise<WorkspaceAssignment[]>;
  /** Sets each listed assignee's grant on the workspace to exactly the one given; others keep theirs. */
  manageWorkspacePermissions(
    workspaceId: string,
    grants: ReadonlyArray<{ assignee: Assignee } & WorkspaceGrant>,
    opts?: CallOptions,
  ): Promise<void>;
  getOrganizationPermissions(): Promise<OrganizationAssignment[]>;
  manageOrganizationPermissions(grants: readonly OrganizationAssignment[], opts?: CallOptions): Promise<void>;
}

/**
 * How the organization signs people in (sign-in.ts): `builtin`, the built-in identity provider;
 * `oidc`, an external provider and the ID-token claim it keys users by (`oauthSubjectIdClaim`).
 */
export type OrganizationSignIn = (
  | { kind: "builtin" }
  | { kind: "oidc"; claim: string; issuer: string | undefined; from: "organization" | "identityProvider" }
) & {
  /** The organization's id (the profile's organizationId), when read through readSignIn. */
  organizationId?: string;
};

/** The client's view of the filters of the workspaces a run manages. */
export interface DataFiltersClient {
  list(workspace: string): Promise<ActualDataFilter[]>;
  get(workspace: string, id: string): Promise<ActualDataFilter | undefined>;
  create(f: DataFilter & { id: string }, opts?: CallOptions): Promise<CreateResult<ActualDataFilter>>;
  replace(f: DataFilter & { id: string }, opts?: CallOptions): Promise<void>;
  delete(workspace: string, id: string, opts?: CallOptions): Promise<DeleteResult>;
}

/** A person's own API tokens (service/api-tokens.ts). */
export interface ApiTokensClient {
  /** The ids of the user's API tokens, sorted; none when the user is not there (404). */
  list(userId: string): Promise<string[]>;
  delete(userId: string, tokenId: string, opts?: CallOptions): Promise<DeleteResult>;
}

export interface ServiceClient {
  readonly profile: ApiProfile;
  readonly baseUrl: string;

  /** `GET /api/v1/profile` (v1): the token's owner and the organization's id; `undefined` on legacy. */
  getProfile(): Promise<{ userId: string; organizationId?: string } | undefined>;
  /** How the organization signs people in (service/sign-in.ts); `undefined` where the API cannot tell (legacy). */
  signIn?(): Promise<OrganizationSignIn | undefined>;
  /**
   * The e-mail domains the organization's identity providers claim (their `identifiers`): a
   * mapping with such an e-mail signs in through that provider (access-rules R16).
   */
  identityProviderDomains?(): Promise<string[]>;
  /** The organization's just-in-time provisioning (service/jit.ts); `undefined` when off or where the API cannot tell. */
  jitProvisioning?(): Promise<JitProvisioning | undefined>;

  listIdpUsers(): Promise<IdpUser[]>;
  getIdpUser(email: string): Promise<IdpUser | undefined>;
  createIdpUser(user: NewIdpUser, opts?: CallOptions): Promise<CreateResult<IdpUser>>;
  /** Changes the display name only; never sends a password. */
  /** With a password, the login's password is replaced (a reset); without one it is kept. */
  updateIdpUser(user: NewIdpUser, opts?: CallOptions): Promise<void>;
  deleteIdpUser(email: string, opts?: CallOptions): Promise<DeleteResult>;

  listMappings(): Promise<Mapping[]>;
  getMapping(id: string): Promise<Mapping | undefined>;
  createMapping(mapping: Mapping, opts?: CallOptions): Promise<CreateResult<Mapping>>;
  /** Replaces the whole mapping with `mapping` (every field the profile knows). 404 -> HttpError. */
  updateMapping(mapping: Mapping, opts?: CallOptions): Promise<Mapping>;
  deleteMapping(id: string, opts?: CallOptions): Promise<DeleteResult>;

  listGroups(): Promise<UserGroup[]>;
  getGroup(id: string): Promise<UserGroup | undefined>;
  createGroup(group: UserGroup, opts?: CallOptions): Promise<CreateResult<UserGroup>>;
  updateGroup(group: UserGroup, opts?: CallOptions): Promise<UserGroup>;
  deleteGroup(id: string, opts?: CallOptions): Promise<DeleteResult>;

  /** `GET .../userManagement/userGroups/{id}/members` (v1). */
  getGroupMembers(groupId: string): Promise<MembersRead>;
  /**
   * `POST .../userManagement/userGroups/{id}/addMembers` or `removeMembers` (v1). Idempotent
   * (adding a member twice or removing a non-member changes nothing), so retried like a PUT.
   */
  changeGroupMembers(
    change: { groupId: string; op: "add" | "remove"; userIds: readonly string[] },
    opts?: CallOptions,
  ): Promise<MembersResult>;
  /** A person's own API tokens (service/api-tokens.ts); profile v1 only. */
  readonly apiTokens?: ApiTokensClient;
  /** Workspace and organization permissions; on profile legacy every call throws a ConfigError. */
  readonly permissions: PermissionsClient;
  /** User data filters (profile v1 only; data-filters-api.ts). */
  readonly dataFilters?: DataFiltersClient;

  stats(): ClientStats;
  close(): Promise<void>;
}
