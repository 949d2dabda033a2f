/** The normalised desired state, whatever file format it was read from. */
import type { Problem } from "../errors.js";
import type { Logger } from "pino";
import type { OrganizationPermission, WorkspaceGrant } from "../permissions.js";
import type { OrganizationSignIn } from "../service/types.js";

/** The file formats the desired state can be read from and exported to. */
export type DesiredFormat = "yaml" | "csv";

export type Identity = "builtin" | "external";
export type DesiredStateValue = "present" | "absent";

export interface SourceRef {
  file: string;
  /** 1-based line of the row (CSV) or of the list item (YAML). */
  line: number;
}

/** What one user or group should hold on one workspace. */
export interface DesiredWorkspaceGrant extends WorkspaceGrant {
  workspace: string;
}

/**
 * Permissions a user or group carries (docs/permissions.md). A field left out means "not managed":
 * its actual permissions are kept, whatever the mode, as an absent `groups` keeps a user's groups.
 */
export interface DesiredAccess {
  /** Sorted by workspace id, each workspace once; `[]`: managed, and holds nothing. */
  workspaces?: DesiredWorkspaceGrant[];
  organization?: OrganizationPermission[];
  /** User data filters (docs/data-filters.md), sorted by workspace; `[]`: managed, none. */
  dataFilters?: DesiredDataFilter[];
}

/** One user's or group's data filter on one workspace: rendered MAQL, and the label form it came from. */
export interface DesiredDataFilter {
  workspace: string;
  maql: string;
  /** Set when written as a label and values (the values sorted, each once). */
  label?: string;
  values?: string[];
}

export interface DesiredUser extends DesiredAccess {
  /** Trimmed, as given (case preserved: it is sent as given). */
  email: string;
  /** Organization user id: explicit, or derived from the email (see `deriveUserId`). */
  id: string;
  idDerived: boolean;
  displayName?: string;
  firstname?: string;
  lastname?: string;
  /** `undefined`: the field was absent, keep the groups the user has. `[]`: no groups. Sorted, unique. */
  groups?: string[];
  identity: Identity;
  /** Only for `external` users: the `sub` of the external IdP. */
  authenticationId?: string;
  /** Initial password for a new built-in user (column policy). Never logged, never in a plan. */
  password?: string;
  state: DesiredStateValue;
  source: SourceRef;
  /** The first day with access (YYYY-MM-DD); before it the person is planned as not yet there (docs/onboarding.md). */
  startDate?: string;
  /** The last day with access (YYYY-MM-DD); after it the person is a leaver. */
  endDate?: string;
  /** Extra CSV columns a target's selector reads (`targets[].select.column`), by header name. */
  columns?: Record<string, string>;
}

export interface DesiredGroup extends DesiredAccess {
  id: string;
  name?: string;
  /** `undefined`: keep the parents the group has. Sorted, unique. */
  parents?: string[];
  source: SourceRef;
}

export interface DesiredState {
  users: DesiredUser[];
  groups: DesiredGroup[];
  /** The files this state was read from (for messages and plan fingerprints). */
  files: string[];
  /** What the source read and how it proved the read whole (src/desired/sources/contract.ts). */
  evidence?: Evidence;
  /**
   * Who signs in as whom: the step of the source that read this state (SourceResult.signIn),
   * run once the organization is known. Non-enumerable: never serialised; a slice keeps it.
   */
  readonly signIn?: SignInStep;
  /**
   * What to keep once this state was applied without a failed step (changes-only runs keep the
   * directory's picture and position, cli/changes-file.ts). Non-enumerable, like signIn.
   */
  readonly afterApply?: (run: { managedUsers: number; listing: "whole" | "targeted" }) => Promise<void>;
  /**
   * A changes-only run that touched few people (src/cli/targeted-listing.ts): list only them on
   * the service. `managedUsers`: at the last whole listing, the base of a percentage guard.
   * Non-enumerable, like signIn.
   */
  readonly targeted?: { people: readonly string[]; groupsChanged: boolean; managedUsers?: number };
  /**
   * A partial state (src/desired/sources/changes/partial.ts): `users` holds only the people a
   * changes-only run built (those its changes can have touched), for a targeted listing; the whole
   * state's counts of users and of present ones. Non-enumerable, like signIn.
   */
  readonly partial?: { users: number; present: number };
}

/** What the sign-in step of a source is given (DESIGN section 9, "Who signs in as whom"). */
export interface SignInContext {
  /** How the organization signs people in (its `oauthSubjectIdClaim`); undefined: the service does not tell. */
  signIn: OrganizationSignIn | undefined;
  /** The people to key: the whole read or one target's slice of it (copies: match them by `id`). */
  users: readonly DesiredUser[];
  defaultIdentity: Identity;
  logger: Logger;
}

/**
 * Sets each person's identity and `authenticationId` from the claim the organization keys logins
 * by, or throws an error of exit 4 naming the fix when the directory cannot give that claim.
 */
export type SignInStep = (o: SignInContext) => void;

// The evidence of a whole read: every source returns it (src/desired/sources/contract.ts).
/** A count a server announced, or `unknown` where it gives none (LDAP, Okta, a file). */
export type Count = number | "unknown";

/** One listing read to its end: pages followed, rows read, and what the server said there were. */
export interface ReadTally {
  /** What was read, in words, e.g. `members of group Sales (entra:1f2e…)`. */
  what: string;
  pages: number;
  announced: Count;
  read: number;
}

/** Entries left out on purpose (guests, devices, disabled accounts): counted, never silent. */
export interface SkippedCount {
  reason: string;
  count: number;
  /** Up to SKIPPED_SAMPLE ids or names, for a person to look up. */
  sample: string[];
}

export const SKIPPED_SAMPLE = 5;

export interface Evidence {
  /** `file`, `ldap`, `entra`, `okta`. */
  kind: string;
  /** Where, without secrets: a path, `ldap://host/base`, a tenant, an org URL. */
  source: string;
  /** People in the desired state read (set by readSource). */
  people?: number;
  /** What was asked for: group rules, filters, OUs. Empty: everything the source holds. */
  scope: string[];
  reads: ReadTally[];
  skipped: SkippedCount[];
  /**
   * Members read per picked directory group, keyed by a stable directory id (`entra:<object id>`,
   * `okta:<id>`, `ldap:<dn>`): compared with the last successful run (group-sizes.ts).
   */
  groupSizes: Record<string, number>;
  /**
   * With `source.changes.mode` on (docs/sources.md, "Changes-only runs"): whether this run read
   * only the directory's changes or read whole, and why; the listing of the service likewise.
   */
  read?: ReadHow;
}

/** How a run of a directory with a change feed read its source and listed the service. */
export interface ReadHow {
  /** `changes`: the changes since the kept position applied to the kept picture; `whole`: all of it. */
  source: "changes" | "whole";
  /** Why it read whole (a WholeReason of src/desired/sources/changes/feed.ts); absent after changes. */
  reason?: string;
  /** What the directory or the kept file said, for a person. */
  detail?: string;
  /** Changes applied (source `changes`). */
  changes?: number;
  /** When the kept position was taken (ISO 8601): changes since then were read. */
  since?: string;
  /** `whole`: the whole organization; `targeted`: only the people the changes touched. */
  listing: "whole" | "targeted";
  /** The people listed one by one (listing `targeted`). */
  people?: number;
}

/** A desired state as read, with every problem found in it. */
export interface ReadDesiredResult {
  state: DesiredState;
  /** Errors (severity "error") and warnings, in file and line order. */
  problems: Problem[];
}
