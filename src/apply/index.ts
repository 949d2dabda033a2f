/** The executor's public API: run a plan, and everything the `apply` command needs around it. */
export { applyPlan, DEFAULT_CIRCUIT_BREAKER, type ApplyOptions } from "./apply-plan.js";
export { exitCodeForApply } from "./outcomes.js";
export {
  buildApplyReport,
  failuresByCause,
  notStartedCount,
  doneSummary,
  APPLY_REPORT_FORMAT_VERSION,
  type ApplyReport,
} from "./report.js";
export { createProgressReporter, type ProgressReporter, type ProgressReporterOptions } from "./progress.js";
export {
  checkPlanOrganization,
  checkPlanProfile,
  filterListingForPlan,
  findStaleSteps,
  permissionListingForPlan,
  type ProfileCheck,
} from "./stale.js";
export type * from "./types.js";
export { OUTCOMES, emptyCounts } from "./types.js";
