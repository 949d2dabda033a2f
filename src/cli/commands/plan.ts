/** `usersync plan`: a dry run. stdout carries only the plan. */
import { isEmptyPlan, serializePlan } from "../../plan/index.js";
import { renderPlan } from "../../report/index.js";
import { ExitCode, exitCodeFor } from "../../errors.js";
import { choiceOption, stringOption, type ParsedCommand } from "../args.js";
import { useColor, type Io } from "../io.js";
import { prepareOutputPaths, writeFileAtomic } from "../../files.js";
import { runMetrics } from "../metrics-file.js";
import { loadDesired, loadRuntime, planAgainstService } from "../pipeline.js";

export const PLAN_FORMATS = ["text", "json", "markdown"] as const;

export async function runPlan({ values }: ParsedCommand, io: Io): Promise<number> {
  const format = choiceOption(values, "format", PLAN_FORMATS) ?? "text";
  const runtime = await loadRuntime(values, io);
  await prepareOutputPaths({
    "--out": stringOption(values, "out") ?? runtime.config.output.plan,
    "--metrics-file": stringOption(values, "metrics-file") ?? runtime.config.output.metricsFile,
  });
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
      io.stdout.write(renderPlan(plan, { format, dryRun: true, color: useColor(io.stdout, io.env) }));
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
