/** The pure planner and plan (de)serialisation. */
export { plan, countSteps, type PlanInput } from "./planner.js";
export {
  summarizePlan,
  revokedAccess,
  summarizeDone,
  personOfSteps,
  classifyPerson,
  type PlanSummary,
  type PersonChange,
} from "./summary.js";
export { serializePlan, parsePlan, isEmptyPlan } from "./serialize.js";
export { checkBuiltinIdentity, checkGroupReferences } from "./groups.js";
export {
  checkPermissionPolicy,
  checkWorkspaceReferences,
  exportListing,
  permissionListing,
} from "./permission-checks.js";
export type { PermissionSummary, PermissionSummaryEntry } from "./permission-summary.js";
export { defaultLimits, ASSUMED_LATENCY_SECONDS, type Limits } from "./estimate.js";
export { defaultDisplayName } from "./users.js";
export {
  isoTime,
  type GraceEntry,
  type GraceInput,
  type GraceReason,
  type PendingPerson,
  type DuePerson,
  type PlanGrace,
} from "./grace.js";
export * from "./types.js";
export {
  applyRevertGuard,
  changesOf,
  type FieldChange,
  type RecentChange,
  type RecentInput,
} from "./reverts.js";
export * from "./policy.js";
export {
  STEP_KINDS,
  isStepKind,
  verbOf,
  nounOf,
  isMembersStep,
  objectKey,
  parseObjectKey,
  kindOfStepId,
  type Verb,
  type ObjectKind,
  type ObjectRef,
  type StepKindInfo,
} from "./kinds.js";
export {
  ABSENT,
  idpKey,
  mappingKey,
  groupKey,
  fingerprintActual,
  digestActual,
  hash,
  canonicalJson,
} from "./fingerprint.js";
export { dataFilterListing, exportFilterListing, managesDataFilters } from "./access/data-filters.js";
export { checkDataFilterPolicy } from "./access/filter-checks.js";
