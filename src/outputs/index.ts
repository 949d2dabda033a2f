/**
 * Where a run's results go, besides the service and the terminal: generated passwords (the
 * credentials file or one Kubernetes Secret per user), the journal, the saved plan and the apply
 * report, the metrics (a textfile and/or a Pushgateway). The commands in cli/ resolve the paths (cli/output-paths.ts) and hand them here.
 */
export {
  createPasswordProvider,
  generatePassword,
  CREDENTIALS_HEADER,
  type PasswordProviderOptions,
} from "./passwords.js";
export { openKubeSecrets, secretName, SECRET_LABEL, type KubeSecretOptions } from "./kube-secrets.js";
export { openJournal, type JournalLine } from "./journal.js";
export { writeApplyReport, writePlanFile } from "./report-files.js";
export { metricsTargets, runMetrics, type MetricsTargets, type RunMetrics } from "./metrics.js";
export { pushMetrics, pushPath, type MetricsPush } from "./pushgateway.js";
