/**
 * Carrying a plan out from the CLI: passwords (refused before anything is sent when unsafe),
 * journal, progress, the executor, the report and the summary.
 */
import {
  applyPlan,
  createProgressReporter,
  exitCodeForApply,
  failuresByCause,
  notStartedCount,
} from "../apply/index.js";
import { createPasswordProvider, openJournal, openKubeSecrets, writeApplyReport } from "../outputs/index.js";
import { renderApplySummary } from "../report/index.js";
import type { ApplyResult, Journal, PasswordProvider } from "../apply/index.js";
import { applyInterrupts } from "./apply-interrupts.js";
import type { DesiredState } from "../desired/index.js";
import type { PasswordSource, Plan } from "../plan/index.js";
import type { ServiceClient } from "../service/index.js";
import { useColor } from "./io.js";
import { optional, type Runtime } from "./pipeline.js";
import type { Outputs } from "./output-paths.js";

export interface ExecuteOptions {
  plan: Plan;
  client: ServiceClient;
  desired?: DesiredState;
  stale?: ReadonlySet<string>;
  /** The run's output files (outputs.ts); only `credentials`, `report` and `journal` are read here. */
  outputs: Outputs;
  /** The apply run's id: on every journal line and in the report (docs/audits.md). */
  runId?: string;
}

/** The password source the plan really needs: none when it creates no built-in user with one. */
export function passwordSourceNeeded(plan: Plan): PasswordSource {
  for (const step of plan.steps) {
    if (step.kind === "createCredentials" && step.status === "planned" && step.after.password !== "none") {
      return step.after.password;
    }
  }
  return "none";
}

function columnPasswords(desired: DesiredState | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const u of desired?.users ?? [])
    if (u.password !== undefined) out.set(u.email.toLowerCase(), u.password);
  return out;
}

/** Checks what must be refused before a single request is sent; returns the ready password provider. */
export async function preparePasswords(runtime: Runtime, options: ExecuteOptions) {
  const { config } = runtime;
  const source = passwordSourceNeeded(options.plan);
  // Kubernetes Secrets replace the credentials file as the place generated passwords go.
  const prefix = config.output.credentialsSecretPrefix;
  const credentials = options.outputs.credentials;
  if (credentials !== undefined && config.identity.passwords !== "generate")
    runtime.logger.warn(
      { notice: "no-effect" },
      `${credentials.name} has no effect with identity.passwords: ${config.identity.passwords}: only generated passwords are written to the credentials file`,
    );
  if (source === "generate" && prefix !== undefined) {
    const written = [
      ...(credentials !== undefined ? ["the credentials file"] : []),
      ...(options.outputs.credentialsDir !== undefined ? ["the credentials folder"] : []),
    ];
    if (written.length > 0)
      runtime.logger.warn(
        `generated passwords go to Kubernetes Secrets (output.credentialsSecretPrefix); ${written.join(" and ")} ${written.length > 1 ? "are" : "is"} not written`,
      );
    return openKubeSecrets({
      prefix,
      env: runtime.io.env,
      ...optional("serviceAccountDir", config.output.kubernetesServiceAccountDir),
    });
  }
  return createPasswordProvider({
    source,
    ...optional("credentialsFile", credentials?.path),
    ...optional("credentialsDir", options.outputs.credentialsDir?.path),
    ...optional("passwordFile", config.identity.passwordFile),
    columnPasswords: columnPasswords(options.desired),
  });
}

/**
 * Where the generated passwords went: the person needs them to hand the new logins out. Counted
 * by the logins this run created, not by the passwords drawn: after Ctrl-C or a failure, a
 * password drawn for a login never made is said apart.
 */
function credentialsNote(passwords: PasswordProvider, result: ApplyResult, plan: Plan): string {
  const drawn = passwords.generated?.() ?? 0;
  if (passwords.credentialsFile === undefined || drawn === 0) return "";
  const logins = result.outcomes.filter((o) => o.kind === "createCredentials" && o.outcome === "succeeded");
  const created = logins.length;
  // A login whose user record exists already (an e-mail change, a person re-added) is no new user.
  const forNewUser = new Set(
    plan.steps.filter((s) => s.kind === "createMapping").flatMap((s) => s.dependsOn),
  );
  const newUsers = logins.filter((o) => forNewUser.has(o.stepId)).length;
  const whose =
    newUsers === created
      ? `the ${created} new built-in user(s) created`
      : `the ${created} built-in login(s) created (${newUsers} new user(s), ${created - newUsers} for existing users: a new e-mail or a person re-added)`;
  const unused =
    drawn > created ? ` (${drawn - created} more line(s) for logins not created: not valid)` : "";
  const dir =
    passwords.credentialsDir === undefined ? "" : `; one file per person in ${passwords.credentialsDir}`;
  return `Initial passwords of ${whose}: ${passwords.credentialsFile} (mode 0600)${dir}${unused}\n`;
}

/** The journal of this run; a write that fails is logged once and the run goes on without it. */
function openRunJournal(runtime: Runtime, journalFile: string, runId: string | undefined) {
  const journalFailed = (err: unknown): void =>
    runtime.logger.error(
      { file: journalFile, err: (err as Error).message },
      "the journal cannot be written; the run goes on, its outcome will be in the summary and the report",
    );
  return openJournal(journalFile, { onFailure: journalFailed, ...optional("runId", runId) });
}

/** After the run: the report file, one warning line when it failed or stopped, the summary. */
async function reportRun(
  runtime: Runtime,
  options: ExecuteOptions & { result: ApplyResult; passwords: PasswordProvider },
): Promise<void> {
  const { logger, io } = runtime;
  const { result } = options;
  const reportFile = options.outputs.report?.path;
  if (reportFile !== undefined)
    await writeApplyReport(reportFile, { result, plan: options.plan, logger, runId: options.runId });
  const notStarted = notStartedCount(result);
  const causes = failuresByCause(result);
  // For log collectors; on a terminal the summary below says the same on the same screen.
  const sameScreen = io.stdout.isTTY === true && io.stderr.isTTY === true;
  if ((result.stoppedBy || result.counts.failed > 0) && !sameScreen)
    logger.warn(
      {
        stoppedBy: result.stoppedBy,
        done: result.outcomes.length - notStarted,
        notStarted,
        ...(causes.length > 0 ? { failuresByCause: causes } : {}),
      },
      "apply ended with failures or stopped",
    );
  io.stdout.write(renderApplySummary(result, { color: useColor(io.stdout, io.env), plan: options.plan }));
  if (runtime.outcome !== undefined) runtime.outcome.stepsApplied = result.counts.succeeded;
  io.stdout.write(credentialsNote(options.passwords, result, options.plan));
}

export async function executePlan(
  runtime: Runtime,
  options: ExecuteOptions & { passwords: Awaited<ReturnType<typeof preparePasswords>> },
): Promise<{ result: ApplyResult; exitCode: number }> {
  const { config, logger, io } = runtime;
  const journalFile = options.outputs.journal?.path;
  let journal: Journal | undefined;
  const interrupts = applyInterrupts({
    plan: options.plan,
    client: options.client,
    logger,
    io,
    report: (result) => reportRun(runtime, { ...options, result }),
  });
  try {
    journal =
      journalFile !== undefined ? await openRunJournal(runtime, journalFile, options.runId) : undefined;
    const runnable = options.plan.steps.filter((s) => s.status === "planned").length;
    const progress = createProgressReporter({
      stream: io.stderr,
      isTTY: io.stderr.isTTY === true,
      total: runnable,
      logger,
      estimateSeconds: options.plan.estimate.seconds,
    });
    const result = await applyPlan({
      plan: options.plan,
      client: options.client,
      concurrency: config.execution.concurrency,
      circuitBreaker: config.execution.circuitBreaker,
      passwords: options.passwords,
      ...optional("stale", options.stale),
      journal: interrupts.journal(journal),
      logger,
      onProgress: (p) => {
        interrupts.progress(p);
        progress.update(p);
      },
      signal: interrupts.signal,
    });
    progress.done();
    await interrupts.reportOnce(result);
    return { result, exitCode: exitCodeForApply(result) };
  } finally {
    interrupts.release();
    try {
      // A journal that failed was said at the time; it must not replace the run's exit code.
      await journal?.close().catch(() => {});
    } finally {
      await options.passwords.close();
    }
  }
}
