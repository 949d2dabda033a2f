/** The policy the planner applies: the `policy` section of the config, normalised. */

export type Mode = "incremental" | "full";
export type Membership = "exact" | "additive";
export type Deletions = "none" | "revoke" | "remove";
export type PasswordSource = "generate" | "column" | "file" | "none";

export interface Scope {
  /** Lower-case email domains; a user is in scope when its email's domain is one of them. */
  emailDomains?: string[];
  /** Globs (`*`, `?`) over user ids. */
  idPatterns?: string[];
  /** Members of any of these groups are in scope. */
  groups?: string[];
}

/** The `permissions` section: what usersync may change of workspace and organization permissions. */
export interface PermissionPolicy {
  /** Globs over workspace ids whose permissions may change (`*`: all); empty: none. */
  workspaces: string[];
  /** Removals allowed before they are held back: a count or a percentage of the managed assignments. */
  maxRemovals: { count: number } | { percent: number };
  /** `--allow-permission-removals N` for this run. */
  allowRemovals?: number;
  /** Organization MANAGE may be granted or revoked (off: it is never touched). */
  allowOrganizationManage: boolean;
}

/** The `dataFilters` section: where usersync keeps user data filters, and the widening guard. */
export interface DataFilterPolicy {
  /** Globs over workspace ids whose filters usersync keeps (`*`: all); empty: none. */
  workspaces: string[];
  /** Widenings allowed before they are all held back: a count or a percentage of the managed filters. */
  maxWidenings: { count: number } | { percent: number };
  /** `--allow-filter-widenings N` for this run. */
  allowWidenings?: number;
}

export interface Policy {
  mode: Mode;
  membership: Membership;
  deletions: Deletions;
  /** What to do with built-in IdP users that no mapping of this organization points at. */
  unlinkedCredentials: "ignore" | "delete";
  /** Deletions allowed before they are held back: a count or a percentage of managed users. */
  maxDeletes: { count: number } | { percent: number };
  /** `--allow-deletes N` for this run: raises the threshold to N deletions. */
  allowDeletes?: number;
  /**
   * Grace period (`policy.revokeAfter`): a person missing from the source is revoked or removed
   * only once missing this long (the planner's `grace` input says since when). Unset: at once.
   */
  revokeAfter?: { text: string; seconds: number };
  /**
   * The revert guard (`policy.revertWindow`, plan/reverts.ts): a step that undoes a change an
   * apply made this recently is held back. Unset: off.
   */
  revertWindow?: { text: string; seconds: number };
  /** `--allow-reverts N` for this run: up to N reverting steps go through. */
  allowReverts?: number;
  /** Empty = everything is in scope. Several criteria: in scope when any matches. */
  scope: Scope;
  /** Ids, emails or globs that are never changed or deleted (besides the built-in ones). */
  protect: string[];
  groups: {
    create: boolean;
    update: boolean;
    prune: boolean;
    createReferenced: boolean;
  };
  /** Where the initial password of a new built-in user comes from. */
  passwords: PasswordSource;
  permissions: PermissionPolicy;
  /** Absent in policies made before data filters (tests, saved inputs): none are managed. */
  dataFilters?: DataFilterPolicy;
}

export const defaultPolicy: Policy = {
  mode: "incremental",
  membership: "exact",
  deletions: "revoke",
  unlinkedCredentials: "ignore",
  maxDeletes: { percent: 10 },
  scope: {},
  protect: [],
  groups: { create: true, update: true, prune: false, createReferenced: false },
  passwords: "generate",
  permissions: { workspaces: [], maxRemovals: { percent: 10 }, allowOrganizationManage: false },
};

/** Always protected, whatever the config says (plus the caller's own user id). */
export const builtinProtected: readonly string[] = ["admin", "demo", "system*", "*.system"];
