/** `usersync plan`: a dry run. stdout carries only the plan. */
import { isEmptyPlan, serializePlan } from "../../plan/index.js";
import { renderPlan } from "../../report/index.js";
import { ExitCode } from "../../errors.js";
import { choiceOption, stringOption, type ParsedCommand } from "../args.js";
import { useColor, type Io } from "../io.js";
import { writeFileAtomic } from "../files.js";
import { writeMetricsFile } from "../metrics-file.js";
import { loadDesired, loadRuntime, planAgainstService } from "../pipeline.js";

export const PLAN_FORMATS = ["text", "json", "markdown"] as const;

export async function runPlan({ values }: ParsedCommand, io: Io): Promise<number> {
  const started = performance.now();
  const format = choiceOption(values, "format", PLAN_FORMATS) ?? "text";
  const runtime = await loadRuntime(values, io);
  const desired = await loadDesired(runtime);
  const planned = await planAgainstService(runtime, { values, desired });
  try {
    const { plan } = planned;
    io.stdout.write(renderPlan(plan, { format, dryRun: true, color: useColor(io.stdout, io.env) }));
    const out = stringOption(values, "out") ?? runtime.config.output.plan;
    if (out !== undefined) {
      await writeFileAtomic(out, serializePlan(plan));
      runtime.logger.info({ file: out }, "plan saved");
    }
    const exitCode =
      values["detailed-exitcode"] === true && !isEmptyPlan(plan) ? ExitCode.changes : ExitCode.ok;
    const metricsFile = stringOption(values, "metrics-file") ?? runtime.config.output.metricsFile;
    if (metricsFile !== undefined) {
      const stats = planned.connection.client.stats();
      await writeMetricsFile(metricsFile, {
        command: "plan",
        plan,
        exitCode,
        durationSeconds: (performance.now() - started) / 1000,
        requests: stats.requests,
        retries: stats.retries,
      });
    }
    return exitCode;
  } finally {
    await planned.connection.close();
  }
}
