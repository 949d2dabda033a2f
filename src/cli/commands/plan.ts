/** `usersync plan`: a dry run. stdout carries only the plan. */
import { isEmptyPlan, serializePlan } from "../../plan/index.js";
import { DETAIL_LEVELS, renderPlan, type Detail, type PlanFormat } from "../../report/index.js";
import { ConfigError } from "../../errors.js";
import { ExitCode, exitCodeFor } from "../../errors.js";
import { choiceOption, stringOption, type ParsedCommand } from "../args.js";
import { useColor, type Io } from "../io.js";
import { writeFileAtomic } from "../../files.js";
import { runMetrics } from "../metrics-file.js";
import { loadDesired, loadRuntime, planAgainstService } from "../pipeline.js";

export const PLAN_FORMATS = ["text", "json", "markdown"] as const;

/** `--detail`: text only (JSON is the whole plan; Markdown has its own size cap). */
export function detailOption(values: ParsedCommand["values"], format: PlanFormat): Detail | undefined {
  const detail = choiceOption(values, "detail", DETAIL_LEVELS);
  if (detail !== undefined && format !== "text")
    throw new ConfigError({
      message: `--detail applies to --format text only, not to --format ${format}. Leave it out.`,
    });
  return detail;
}

export async function runPlan({ values }: ParsedCommand, io: Io): Promise<number> {
  const format = choiceOption(values, "format", PLAN_FORMATS) ?? "text";
  const detail = detailOption(values, format);
  const runtime = await loadRuntime(values, io);
  const metrics = runMetrics(
    "plan",
    stringOption(values, "metrics-file") ?? runtime.config.output.metricsFile,
  );
  try {
    const desired = await loadDesired(runtime);
    const planned = await planAgainstService(runtime, { values, desired });
    metrics.client = planned.connection.client;
    try {
      const { plan } = planned;
      metrics.plan = plan;
      io.stdout.write(renderPlan(plan, { format, detail, dryRun: true, color: useColor(io.stdout, io.env) }));
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
