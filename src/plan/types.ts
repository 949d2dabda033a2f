/**
 * A plan: the tagged union of steps the executor carries out, plus what the planner saw and
 * left alone. Serialised as JSON with `formatVersion`; see docs/plan-format.md.
 * A plan contains no secret: passwords appear only as their source.
 */
import type { ApiProfile, Mapping, UserGroup, IdpUser } from "../service/types.js";
import type { Evidence } from "../desired/types.js";
import type { PlanGrace } from "./grace.js";
import type { PlanDates } from "./dates.js";
import type { Mode, Membership, Deletions, PasswordSource } from "./policy.js";
import type { FromStep, StepBase } from "./step-base.js";
import type {
  DataFilterStep,
  DeleteApiTokenStep,
  OrganizationPermissionsStep,
  WorkspacePermissionsStep,
} from "./access-steps.js";
export type { FromStep } from "./step-base.js";
export type * from "./access-steps.js";

/** The version this usersync writes; it reads 1 too (every version-1 plan is a valid version-2 plan). */
export const PLAN_FORMAT_VERSION = 2;

export interface CreateGroupStep extends StepBase {
  kind: "createGroup";
  target: string;
  after: UserGroup;
}
export interface UpdateGroupStep extends StepBase {
  kind: "updateGroup";
  target: string;
  before: UserGroup;
  after: UserGroup;
}
export interface DeleteGroupStep extends StepBase {
  kind: "deleteGroup";
  target: string;
  before: UserGroup;
}
export interface CreateCredentialsStep extends StepBase {
  kind: "createCredentials";
  /** email */
  target: string;
  after: { email: string; displayName: string; password: PasswordSource };
}
export interface UpdateCredentialsStep extends StepBase {
  kind: "updateCredentials";
  target: string;
  before: { email: string; displayName: string };
  after: { email: string; displayName: string };
}
export interface DeleteCredentialsStep extends StepBase {
  kind: "deleteCredentials";
  target: string;
  before: IdpUser;
}
export type PlannedMapping = Omit<Mapping, "authenticationId"> & { authenticationId?: string | FromStep };
export interface CreateMappingStep extends StepBase {
  kind: "createMapping";
  /** user id */
  target: string;
  after: PlannedMapping;
}
export interface UpdateMappingStep extends StepBase {
  kind: "updateMapping";
  target: string;
  before: Mapping;
  after: PlannedMapping;
  /**
   * A leaver's access revoke (`deletions: revoke`): the update takes them out of their groups,
   * and the step is a deletion for `maxDeletes` (plan/revoke-access.ts).
   */
  revokesAccess?: true;
}
export interface DeleteMappingStep extends StepBase {
  kind: "deleteMapping";
  target: string;
  before: Mapping;
}

/**
 * One request of bulk membership (profile v1): people whose only change is membership join
 * (`addMembers`) or leave (`removeMembers`) the group `target` together. See docs/plan-format.md.
 */
export interface AddMembersStep extends StepBase {
  kind: "addMembers";
  /** group id */
  target: string;
  /** User ids, sorted; at most MEMBERS_PER_REQUEST (src/plan/bulk.ts). */
  members: string[];
}
export interface RemoveMembersStep extends StepBase {
  kind: "removeMembers";
  target: string;
  members: string[];
}
export type MembersStep = AddMembersStep | RemoveMembersStep;

export type Step =
  | CreateGroupStep
  | UpdateGroupStep
  | DeleteGroupStep
  | CreateCredentialsStep
  | UpdateCredentialsStep
  | DeleteCredentialsStep
  | CreateMappingStep
  | UpdateMappingStep
  | DeleteMappingStep
  | WorkspacePermissionsStep
  | OrganizationPermissionsStep
  | AddMembersStep
  | RemoveMembersStep
  | DataFilterStep
  | DeleteApiTokenStep;

export type StepKind = Step["kind"];

/** Something the planner saw and deliberately left alone, listed so nothing is silently dropped. */
export interface Notice {
  /**
   * `kept`: a deletion the file asks for that `deletions: none` leaves undone; `keptByMode`: a
   * workspace grant of a managed holder that incremental mode keeps though the holder no longer lists it;
   * `adopted`: an existing mapping of a person kept under its own id (plan/adopt.ts).
   */
  kind:
    | "unmanaged"
    | "unlinked"
    | "conflict"
    | "protected"
    | "refused"
    | "kept"
    | "keptByMode"
    | "adopted"
    /** A new person with the name of a login the file no longer lists: not planned (plan/email-change.ts). */
    | "emailChange";
  /** Object key, e.g. `mapping:jane`, `idp:jane@example.com`. */
  target: string;
  message: string;
}

export interface PlanCounts {
  create: number;
  update: number;
  delete: number;
  heldBack: number;
}

/** One change of a plan that undoes a recent one, with the run that made it. */
export interface PlanRevert {
  step: string;
  object: string;
  field: string;
  /** The value now (what the recent run set) and the value the step puts back. */
  from: string;
  to: string;
  /** When the recent run applied the change (ISO 8601) and its plan's stateDigest. */
  changedAt: string;
  run: string;
}

/** `reverts` of a plan: the window, how many reverting steps were allowed and wanted, and each change. */
export interface PlanReverts {
  window: string;
  limit: number;
  wanted: number;
  changes: PlanRevert[];
}

export interface PlanOrganization {
  id?: string;
  url: string;
}

export interface Plan {
  formatVersion: typeof PLAN_FORMAT_VERSION;
  profile: ApiProfile;
  mode: Mode;
  membership: Membership;
  deletions: Deletions;
  /** Hash of the desired state and policy (not of any secret). */
  inputFingerprint: string;
  /** Object key -> fingerprint of the actual object the plan was made against (`absent` when missing). */
  objects: Record<string, string>;
  steps: Step[];
  notices: Notice[];
  counts: PlanCounts;
  /** Deletions allowed by `maxDeletes` (or `--allow-deletes`) and how many the plan wanted. */
  deleteGuard: { limit: number; wanted: number; managedUsers: number };
  /**
   * Permission removals (assignee × workspace, or × organization) allowed by `permissions.maxRemovals`
   * (or `--allow-permission-removals`), how many the plan wanted, and the managed assignments a
   * percentage is taken of. Only in plans that manage permissions.
   */
  permissionGuard?: { limit: number; wanted: number; managedAssignments: number };
  /**
   * Data filter removals and widenings while access remains, allowed by `dataFilters.maxWidenings`
   * (or `--allow-filter-widenings`), how many the plan wanted, and the managed filters a
   * percentage is taken of. Only in plans that manage data filters.
   */
  dataFilterGuard?: { limit: number; wanted: number; managedFilters: number };
  estimate: { requests: number; seconds: number };
  /**
   * Incremental mode: people the file does not name whom `full` mode would revoke or remove,
   * kept only because of the mode. Written only when not zero.
   */
  keptByMode?: number;
  /**
   * People of the desired state the plan leaves alone because another mapping holds their login
   * (the `conflict` notices that name a row). In full mode the run then ends with exit 3: a
   * person the source names is never silently unmanaged. Written only when not zero.
   */
  conflicts?: number;
  /**
   * The organization provisions people at sign-in too (JIT_PROVISIONING, JWT_JIT_PROVISIONING;
   * read for directory sources): which settings are on, and the groups the settings name that the
   * desired state also manages, which both the service (at every sign-in) and usersync write.
   */
  jit?: { settings: string[]; sharedGroups: string[] };
  /** With `policy.revokeAfter`: people missing from the source who wait, and who are due. */
  grace?: PlanGrace;
  /**
   * The revert guard (`policy.revertWindow`): the plan's changes that undo what a recent apply
   * changed, each with that run's time and stateDigest; held back over `--allow-reverts`.
   * Written only when some step reverts.
   */
  reverts?: PlanReverts;
  /** Start and end dates against the run's day (dates.ts): who waits, starts, ended. Only when someone is dated. */
  dates?: PlanDates;
  /**
   * `deletions: revoke`: the ids of the leavers whose access this plan revokes (groups, managed
   * grants and filters, their API tokens; a built-in login is deleted besides; the mapping stays), sorted;
   * held back with the other deletions over `maxDeletes`. Written only when not empty.
   */
  accessRevoked?: string[];
  /**
   * The organization the plan was made for: its id as the service names it (`organizationId` of
   * `GET /api/v1/profile`; absent where the API cannot tell, legacy) and the URL it was reached
   * at (`embedded` for the embedded emulator). `apply --plan` refuses any other (exit 4, nothing
   * sent); a saved plan without it is refused too. Attached by the pipeline after planning.
   */
  organization?: PlanOrganization;
  /** The digest of the whole state the plan read (fingerprint.ts `digestActual`), attached with `organization`. */
  stateDigest?: string;
  /**
   * What the desired state was read from and the evidence the read was whole (src/desired/sources/):
   * attached by the pipeline after planning, for the auditor; the planner never reads it.
   */
  source?: Evidence;
}
