/**
 * The access review (DESIGN section 12, docs/audits.md): the model every renderer (CSV, JSON,
 * Markdown, HTML) reads. Plain data, JSON as it is (no Map, no Date, no undefined inside lists),
 * so the JSON format is this object and a saved review can be read back for `--since`.
 * Stability: fields are only ever added; `formatVersion` changes when one changes meaning. */
import type { Assignee, OrganizationPermission, WorkspacePermission } from "../permissions.js";

export const REVIEW_FORMAT_VERSION = 1;

/** How a person signs in, as the listing shows it. */
export type LoginStatus =
  /** A mapping linked to a built-in identity-provider user: can sign in with a password. */
  | "active"
  /** A mapping whose built-in login was deleted (or never linked): nobody can sign in as it. */
  | "revoked"
  /** A mapping whose authenticationId belongs to an external OIDC provider (SSO). */
  | "external"
  /** A built-in login that no mapping of this organization points at: no organization user. */
  | "loginOnly"
  /**
   * A mapping sharing its authenticationId with an alphabetically earlier userId: the service signs
   * that one in, never this one (access-rules R15).
   */
  | "shadowed";

/**
 * The one word a reviewer sorts by: `protected` and `outOfScope` win over the login status,
 * because they say usersync will not touch the person whatever the login is.
 */
export type PersonStatus = LoginStatus | "outOfScope" | "protected" | "leaver";

/**
 * Whether the desired state agrees with what the person holds (from the planner run against it):
 * `inLine` managed, the plan changes nothing of theirs and no finding stands on them; `drifted`
 * managed and the plan would change something (see `drift`); `flagged` managed, the plan changes
 * nothing, but a finding stands on them (never `inLine` beside a finding); `unmanaged` outside the desired state or outside policy.scope;
 * `notCompared` the review ran with no desired state.
 */
export type Agreement = "inLine" | "drifted" | "flagged" | "unmanaged" | "notCompared";

export type { AccessReason, EffectiveFilter } from "../plan/access/reach-types.js";
import type { AccessReason, EffectiveFilter } from "../plan/access/reach-types.js";

/** What one person reaches on one workspace: one CSV row. */
export interface WorkspaceAccess {
  workspace: string;
  workspaceName?: string;
  /** Effective permissions: `granted` with what each covers (permissions.ts WORKSPACE_IMPLIES). Sorted. */
  permissions: WorkspacePermission[];
  /** Granted permissions: the union of every reason's, by name. Sorted. */
  granted: WorkspacePermission[];
  /** Whether the person reaches the workspace: false for an add-on without VIEW (it reaches nothing). */
  reaches: boolean;
  /** Reached through organization MANAGE (every workspace), not through a grant on it. */
  viaOrganization?: boolean;
  /** MANAGE on this workspace (through any reason). */
  manage: boolean;
  /** Every reason, direct first, then groups, then hierarchy; each sorted by holder. */
  reasons: AccessReason[];
  /** Every filter that applies (the service combines them: the person sees rows all of them allow). */
  filters: EffectiveFilter[];
  /**
   * No filter applies to the person here while the workspace (or one above it) has filters for
   * others: they may see every row others are kept from.
   */
  unfiltered: boolean;
  /**
   * When this row last changed (its permissions, or the meaning of its filters), as far as a chain
   * of reviews knows (review-last-change.ts): the ISO 8601 interval `<previous review's
   * generatedAt>/<this review's generatedAt>` when it changed between them, carried from review to
   * review while it does not; absent when no review given to `--since` saw it change.
   */
  lastChange?: string;
  /** Whether the desired state gives the person this access; absent when not compared. */
  desired?: {
    /** The permissions the desired state gives here (direct and through desired groups). */
    permissions: WorkspacePermission[];
    /** The MAQL of the filters the desired state gives here. */
    filters: string[];
  };
}

/** Why a person holds an organization permission. */
export interface OrganizationReason {
  kind: "direct" | "group";
  holder: Assignee;
  groupChain: string[];
  permissions: OrganizationPermission[];
  managed?: boolean;
  text: string;
}

/** Whether the desired state's source still lists the person: present, absent (gone), or disabled there. */
export type SourceStatus = "present" | "absent" | "disabled";

export interface ReviewPerson {
  /** Stable key (snapshot.ts personKeyOf): the userId for a mapping, `login:<email lower-case>` for a login with no mapping. */
  key: string;
  /** The organization user id (mapping id); absent for `loginOnly`. */
  id?: string;
  email?: string;
  displayName?: string;
  authenticationId?: string;
  login: LoginStatus;
  status: PersonStatus;
  inScope: boolean;
  /** Why usersync never changes this person (policy.protect, the caller, admin), when it is so. */
  protected?: string;
  agreement: Agreement;
  /** What the plan would change for this person (one line each); empty unless `drifted`. */
  drift: string[];
  /** Whether the desired state lists the person and how: present, absent (to be revoked/removed). */
  desiredState?: "present" | "absent";
  /** Compared with a desired state: present, absent (not listed, or listed absent), or disabled there. */
  sourceStatus?: SourceStatus;
  /** For `shadowed`: the userId the service signs in instead, who shares this authenticationId (R15). */
  shadowedBy?: string;
  /** In the organization with access while the source no longer has them (absent or disabled). */
  leaver?: boolean;
  /** For a leaver: when a listing of the source first showed them gone, ISO 8601 (the state keeps it). */
  goneSince?: string;
  /** Groups the person is a direct member of, sorted. */
  groups: string[];
  /** Every group they are in through parents too (the closure), sorted. */
  allGroups: string[];
  organizationPermissions: OrganizationPermission[];
  organizationReasons: OrganizationReason[];
  /** The organization permissions the desired state gives (managed people, when compared). */
  desiredOrganization?: OrganizationPermission[];
  /** Organization MANAGE, or MANAGE on any workspace. */
  privileged: boolean;
  access: WorkspaceAccess[];
  /**
   * The ids of the person's own API tokens (never a token's value), listed for the people the
   * review finds leaving (login revoked, or marked absent); absent where not listed.
   */
  apiTokens?: string[];
  /**
   * When something about this person last changed (status, organization permissions, a row
   * gained, lost or changed), as `WorkspaceAccess.lastChange`: an ISO 8601 interval between two
   * reviews, carried forward; absent when no review of the chain saw a change.
   */
  lastChange?: string;
}

export interface ReviewWorkspace {
  id: string;
  name?: string;
  parent?: string;
  /** From the root down to this workspace. */
  path: string[];
  /** Filters defined on this workspace (any holder). */
  filterCount: number;
  /** People who reach it. */
  peopleWithAccess: number;
}

export interface ReviewGroup {
  id: string;
  name?: string;
  parents: string[];
  /** Direct members (mappings) listed. */
  members: number;
}

/** One row of the organization-permissions CSV: a holder of an organization permission. */
export interface OrganizationPermissionRow {
  assignee: Assignee;
  /** For a user: their email when known. */
  email?: string;
  permissions: OrganizationPermission[];
  privileged: boolean;
  /** For a group: how many people hold it through the group (parents included). */
  people?: number;
  managed?: boolean;
}

export type { ChangeKind, Finding, FindingKind, ReviewChange } from "./finding-types.js";
import type { ChangeKind, Finding, FindingKind, ReviewChange } from "./finding-types.js";

export interface ReviewChanges {
  /** The previous review's snapshot. */
  since: ReviewSnapshot;
  changes: ReviewChange[];
  counts: Partial<Record<ChangeKind, number>>;
}

export interface ReviewSnapshot {
  /** When the listing was taken, ISO 8601 UTC. */
  generatedAt: string;
  /** The target's name with `targets:`, else the service's host. */
  organization: string;
  baseUrl: string;
  /** The organization's id in the service, when it was read. */
  organizationId?: string;
  usersyncVersion: string;
  /** The snapshot's digest (snapshot.ts SnapshotHeader.digest). */
  digest: string;
  /** The snapshot's signature, when signed. */
  signature?: string;
}

export interface ReviewSummary {
  people: number;
  byStatus: Partial<Record<PersonStatus, number>>;
  byAgreement: Partial<Record<Agreement, number>>;
  workspaces: number;
  groups: number;
  /** Person x workspace rows. */
  accessRows: number;
  /** People holding organization MANAGE or any workspace MANAGE. */
  privilegedPeople: number;
  /** Access rows marked `unfiltered`. */
  unfilteredRows: number;
  filters: number;
  findings: number;
  findingsByKind: Partial<Record<FindingKind, number>>;
  /** Present with `--since`. */
  changes?: number;
}

/** What the review was made from: the listing, like a plan's evidence. */
export interface ReviewEvidence {
  /** HTTP requests the listing used (every attempt). */
  requests: number;
  /** How workspace grants were read. */
  permissionsVia?: "byWorkspace" | "byAssignee";
  /** Whether a desired state was compared (agreement, managed flags, desired-state findings). */
  desiredCompared: boolean;
  /** The desired-state source, when compared. */
  desiredSource?: string;
  /** policy.mode of the comparison. */
  mode?: "incremental" | "full";
  /** Anything that limits what the review can tell (e.g. a legacy profile has no permissions). */
  notes: string[];
}

export interface Review {
  formatVersion: typeof REVIEW_FORMAT_VERSION;
  kind: "usersync-access-review";
  snapshot: ReviewSnapshot;
  summary: ReviewSummary;
  evidence: ReviewEvidence;
  /** Findings first: the section a reviewer reads before anything else. Sorted by severity, kind, person. */
  findings: Finding[];
  workspaces: ReviewWorkspace[];
  groups: ReviewGroup[];
  /** Sorted by key. */
  people: ReviewPerson[];
  organizationPermissions: OrganizationPermissionRow[];
  /** With `--since`. */
  changes?: ReviewChanges;
}
