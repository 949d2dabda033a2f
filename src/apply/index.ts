/** The executor's public API: run a plan, and everything the `apply` command needs around it. */
export { applyPlan, DEFAULT_CIRCUIT_BREAKER, type ApplyOptions } from "./apply-plan.js";
export { exitCodeForApply } from "./outcomes.js";
export {
  createPasswordProvider,
  generatePassword,
  CREDENTIALS_HEADER,
  type PasswordProviderOptions,
} from "./passwords.js";
export { openKubeSecrets, secretName, SECRET_LABEL, type KubeSecretOptions } from "./kube-secrets.js";
export { openJournal, type JournalLine } from "./journal.js";
export {
  buildApplyReport,
  failuresByCause,
  notStartedCount,
  doneSummary,
  APPLY_REPORT_FORMAT_VERSION,
  type ApplyReport,
} from "./report.js";
export { createProgressReporter, type ProgressReporter, type ProgressReporterOptions } from "./progress.js";
export { checkPlanProfile, findStaleSteps, permissionListingForPlan, type ProfileCheck } from "./stale.js";
export type * from "./types.js";
export { OUTCOMES, emptyCounts } from "./types.js";
