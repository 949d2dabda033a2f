/** `usersync plan`: a dry run. stdout carries only the plan. */
import { isEmptyPlan, serializePlan } from "../../plan/index.js";
import { renderPlan } from "../../report/index.js";
import { renderPlanSummaryLine } from "../../report/describe.js";
import type { Plan } from "../../plan/types.js";
import { ExitCode, exitCodeFor } from "../../errors.js";
import { choiceOption, stringOption, type ParsedCommand } from "../args.js";
import { useColor, type Io } from "../io.js";
import { writeFileAtomic } from "../../files.js";
import { metricsTargets, runMetrics } from "../metrics-file.js";
import { loadDesired, loadRuntime, planAgainstService, type Runtime } from "../pipeline.js";

export const PLAN_FORMATS = ["text", "json", "markdown"] as const;

export async function runPlan({ values }: ParsedCommand, io: Io): Promise<number> {
  const format = choiceOption(values, "format", PLAN_FORMATS) ?? "text";
  const runtime = await loadRuntime(values, io);
  const metrics = runMetrics("plan", metricsTargets(values, runtime));
  try {
    const desired = await loadDesired(runtime);
    const planned = await planAgainstService(runtime, { values, desired });
    metrics.client = planned.connection.client;
    try {
      const { plan } = planned;
      metrics.plan = plan;
      io.stdout.write(renderPlan(plan, { format, dryRun: true, color: useColor(io.stdout, io.env) }));
      if (values["log-report"] === true) logDrift(runtime.logger, plan);
      const out = stringOption(values, "out") ?? runtime.config.output.plan;
      if (out !== undefined) {
        await writeFileAtomic(out, serializePlan(plan));
        runtime.logger.info({ file: out }, "plan saved");
      }
      const detailed = values["detailed-exitcode"] === true;
      return await metrics.finish(detailed && !isEmptyPlan(plan) ? ExitCode.changes : ExitCode.ok);
    } finally {
      await planned.connection.close();
    }
  } catch (err) {
    await metrics.finish(exitCodeFor(err));
    throw err;
  }
}

/**
 * The drift as one structured log line (`--log-report`): with `--log-format json`, `kubectl logs`
 * of the audit Job shows it whole, and a log collector can alert on `drift: true`.
 */
function logDrift(logger: Runtime["logger"], plan: Plan): void {
  const drift = !isEmptyPlan(plan);
  const steps = plan.steps.map((s) => ({ id: s.id, status: s.status, reason: s.reason }));
  (drift ? logger.warn.bind(logger) : logger.info.bind(logger))(
    { report: "drift", drift, counts: plan.counts, steps },
    drift ? `drift found: ${renderPlanSummaryLine(plan)}` : "no drift",
  );
}
