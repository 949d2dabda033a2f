/**
 * The files a run leaves for people and machines to read afterwards: the saved plan
 * (`--out`, output.plan; docs/plan-format.md) and the apply report (`--report`, output.report).
 * Both written whole or not at all (writeFileAtomic), so a reader never sees half a file.
 */
import type { Logger } from "pino";
import { buildApplyReport, type ApplyResult } from "../apply/index.js";
import { writeFileAtomic } from "../files.js";
import { serializePlan, type Plan } from "../plan/index.js";

export async function writePlanFile(file: string, plan: Plan): Promise<void> {
  await writeFileAtomic(file, serializePlan(plan));
}

export async function writeApplyReport(
  file: string,
  report: { result: ApplyResult; plan: Plan; logger: Logger; runId?: string | undefined },
): Promise<void> {
  const built = buildApplyReport(report.result, report.plan, report.runId);
  await writeFileAtomic(file, `${JSON.stringify(built, null, 2)}\n`);
  report.logger.info({ file }, "apply report written");
}
