/** `usersync plan`: a dry run. stdout carries only the plan. */
import { isEmptyPlan, summarizePlan, type Plan } from "../../plan/index.js";
import {
  DETAIL_LEVELS,
  peopleView,
  renderPlan,
  renderPlanSummaryLine,
  type Detail,
  type PlanFormat,
} from "../../report/index.js";
import { ConfigError, ExitCode, exitCodeFor } from "../../errors.js";
import { conflictExit, revertExit } from "../guard-warning.js";
import { choiceOption, type ParsedCommand } from "../args.js";
import { useColor } from "../io.js";
import { metricsTargets, runMetrics, writePlanFile } from "../../outputs/index.js";
import { loadDesired, planAgainstService, type Runtime } from "../pipeline.js";
import { prepareOutputs, resolveOutputs } from "../output-paths.js";

/** How apply shows the plan it carries out; plan also writes a page (html). */
export const SHOWN_FORMATS = ["text", "json", "markdown"] as const;
export const PLAN_FORMATS = [...SHOWN_FORMATS, "html"] as const;

/** `--detail`: text only (JSON is the whole plan; Markdown has its own size cap). */
export function detailOption(values: ParsedCommand["values"], format: PlanFormat): Detail | undefined {
  const detail = choiceOption(values, "detail", DETAIL_LEVELS);
  if (detail !== undefined && format !== "text")
    throw new ConfigError({
      message: `--detail applies to --format text only, not to --format ${format}. Leave it out.`,
    });
  return detail;
}

/** `usersync plan` for one organization (run-targets.ts runs it for each target). */
export async function runPlan({ values }: ParsedCommand, runtime: Runtime): Promise<number> {
  const { io } = runtime;
  const format = choiceOption(values, "format", PLAN_FORMATS) ?? "text";
  const detail = detailOption(values, format);
  const outputs = resolveOutputs(values, runtime.config, ["plan", "metrics"]);
  await prepareOutputs(outputs);
  const metricsTo = metricsTargets(outputs.metrics?.path, runtime);
  const metrics = runMetrics("plan", metricsTo);
  try {
    // A changes-only read may build the touched people only (DesiredState.partial).
    const desired = await loadDesired({ ...runtime, partialDesired: true });
    const planned = await planAgainstService(runtime, { values, desired });
    metrics.client = planned.connection.client;
    try {
      const { plan } = planned;
      metrics.plan = plan;
      const people =
        format === "markdown" || format === "html" ? peopleView(plan, desired, planned.listed) : [];
      const color = useColor(io.stdout, io.env);
      const organization = planned.connection.label;
      io.stdout.write(renderPlan(plan, { format, detail, dryRun: true, color, organization, people }));
      if (values["log-report"] === true) logDrift(runtime.logger, plan);
      const out = outputs.plan?.path;
      if (out !== undefined) {
        await writePlanFile(out, plan);
        runtime.logger.info({ file: out }, "plan saved");
      }
      if (runtime.outcome !== undefined) runtime.outcome.changesPlanned = !isEmptyPlan(plan);
      const detailed = values["detailed-exitcode"] === true;
      const code = detailed && !isEmptyPlan(plan) ? ExitCode.changes : ExitCode.ok;
      const guarded = revertExit(runtime.logger, plan, code, detailed);
      return await metrics.finish(conflictExit(runtime.logger, plan, guarded));
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
const DRIFT_STEPS_LOGGED = 200;

function logDrift(logger: Runtime["logger"], plan: Plan): void {
  const drift = !isEmptyPlan(plan);
  // The summary says it all at any size; the steps are a bounded sample, so the line stays
  // readable in `kubectl logs` at 20,000 users (the whole plan: --format json --out).
  const steps = plan.steps
    .slice(0, DRIFT_STEPS_LOGGED)
    .map((s) => ({ id: s.id, status: s.status, reason: s.reason }));
  const omitted = plan.steps.length - steps.length;
  (drift ? logger.warn.bind(logger) : logger.info.bind(logger))(
    {
      report: "drift",
      drift,
      summary: summarizePlan(plan),
      counts: plan.counts,
      steps,
      ...(omitted > 0 ? { stepsNotLogged: omitted } : {}),
    },
    drift ? `drift found: ${renderPlanSummaryLine(plan)}` : "no drift",
  );
}
