/**
 * `usersync apply`: plan (or read a saved plan), show it, confirm, carry it out.
 * Everything that can be refused is refused before the first request that changes anything.
 */
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { conflictExit, revertExit } from "../guard-warning.js";
import { ConfigError, ExitCode, InputError, SafetyRefusal, exitCodeFor } from "../../errors.js";
import {
  checkPlanOrganization,
  checkPlanProfile,
  filterListingForPlan,
  findStaleSteps,
  permissionListingForPlan,
} from "../../apply/index.js";
import { listActualState } from "../../service/index.js";
import { isEmptyPlan, parsePlan, type Plan } from "../../plan/index.js";
import type { ApplyResult } from "../../apply/index.js";
import type { DesiredState } from "../../desired/index.js";
import { COMPACT_OVER_STEPS, confirmQuestion, renderPlan } from "../../report/index.js";
import { choiceOption, stringOption, type ParsedCommand } from "../args.js";
import { canPrompt, confirm, useColor, type Io } from "../io.js";
import { ownPath, prepareOutputs, resolveOutputs, type Outputs } from "../output-paths.js";
import { metricsTargets, runMetrics, writePlanFile, type RunMetrics } from "../../outputs/index.js";
import { loadDesired, optional, planAgainstService, type Runtime } from "../pipeline.js";
import { connect, type Connection } from "../target.js";
import { organizationOf } from "../plan-organization.js";
import { executePlan, passwordSourceNeeded, preparePasswords } from "../execute.js";
import { prepareStateFile, recordGroupSizes, recordRemovals, recordRunState } from "../run-state.js";
import { recordChanges } from "../recent-changes.js";
import { detailOption, SHOWN_FORMATS } from "./plan.js";
import { usersyncCommand } from "../invocation.js";

interface Prepared {
  plan: Plan;
  connection: Connection;
  desired?: DesiredState;
  stale?: Set<string>;
}

async function prepareSavedPlan(runtime: Runtime, file: string): Promise<Prepared> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new InputError({
      message: `cannot read the saved plan ${file}: ${(err as Error).message}`,
      problems: [],
    });
  }
  const plan = parsePlan(text, file);
  // Column passwords are never saved in a plan: read them again from the desired state.
  const desired = passwordSourceNeeded(plan) === "column" ? await loadDesired(runtime) : undefined;
  const connection = await connect({ config: runtime.config, logger: runtime.logger });
  try {
    checkPlanProfile({ plan, profile: connection.client.profile, file, service: connection.label });
    const profile = await connection.client.getProfile();
    checkPlanOrganization({ plan, here: organizationOf(runtime.config, profile?.organizationId), file });
    const permissions = permissionListingForPlan(plan, runtime.config.execution.pageSize);
    const dataFilters = filterListingForPlan(plan);
    const actual = await listActualState(connection.client, { permissions, dataFilters });
    const stale = findStaleSteps(plan, actual);
    if (stale.size > 0) {
      runtime.logger.warn(
        { stale: stale.size },
        `${stale.size} step(s) of the saved plan touch objects that changed since it was made; they will not be carried out`,
      );
    }
    return { plan, connection, stale, ...optional("desired", desired) };
  } catch (err) {
    await connection.close();
    throw err;
  }
}

/** The plan to apply and an open connection: a saved plan checked against the service, or a new one. */
async function preparePlan(
  runtime: Runtime,
  values: ParsedCommand["values"],
  savedPlan: string | undefined,
): Promise<Prepared> {
  if (savedPlan !== undefined) {
    if (
      values["allow-deletes"] !== undefined ||
      values["allow-permission-removals"] !== undefined ||
      values["allow-filter-widenings"] !== undefined ||
      values["allow-reverts"] !== undefined ||
      values["mode"] !== undefined
    ) {
      throw new ConfigError({
        message: `--allow-deletes, --allow-permission-removals, --allow-filter-widenings, --allow-reverts and --mode shape a plan: a saved plan is applied exactly as it was made. Make a new plan with them (${usersyncCommand()} plan --out FILE ...).`,
      });
    }
    return prepareSavedPlan(runtime, savedPlan);
  }
  // Planned here and now: a changes-only read may build the touched people only (DesiredState.partial).
  const desired = await loadDesired({ ...runtime, partialDesired: true });
  const planned = await planAgainstService(runtime, { values, desired });
  return { plan: planned.plan, connection: planned.connection, desired };
}

/** `usersync apply` for one organization (run-targets.ts runs it for each target). */
export async function runApply(command: ParsedCommand, runtime: Runtime): Promise<number> {
  const { values } = command;
  const outputs = resolveOutputs(values, runtime.config, [
    "metrics",
    "plan",
    "report",
    "journal",
    "credentials",
    "credentialsDir",
  ]);
  await prepareOutputs(outputs, runtime.config);
  await prepareStateFile(runtime.config);
  const metrics = runMetrics("apply", metricsTargets(outputs.metrics?.path, runtime));
  try {
    return await metrics.finish(await applyCommand(command, { runtime, metrics, outputs }));
  } catch (err) {
    await metrics.finish(exitCodeFor(err));
    throw err;
  }
}

async function applyCommand(
  { values }: ParsedCommand,
  { runtime, metrics, outputs }: { runtime: Runtime; metrics: RunMetrics; outputs: Outputs },
): Promise<number> {
  const { io } = runtime;
  const format = choiceOption(values, "format", SHOWN_FORMATS) ?? "text";
  let detail = detailOption(values, format);
  const savedPlan = ownPath(stringOption(values, "plan"), runtime.config);
  const prepared = await preparePlan(runtime, values, savedPlan);
  const { plan, connection } = prepared;
  metrics.client = connection.client;
  metrics.plan = plan;
  try {
    // A big plan shows only its summary before the question, so the two are on one screen.
    if (detail === undefined && plan.steps.length > COMPACT_OVER_STEPS) detail = "summary";
    const color = useColor(io.stdout, io.env);
    const organization = connection.label;
    io.stdout.write(renderPlan(plan, { format, detail, dryRun: false, color, organization }));
    const out = outputs.plan?.path;
    if (out !== undefined && savedPlan === undefined) await writePlanFile(out, plan);
    if (isEmptyPlan(plan)) {
      await recordRunState(runtime, plan);
      await recordGroupSizes(runtime, prepared.desired?.evidence);
      await prepared.desired?.afterApply?.(afterApplyRun(plan, prepared.desired));
      io.stdout.write("Nothing to apply.\n");
      return conflictExit(runtime.logger, plan, ExitCode.ok);
    }
    const passwords = await preparePasswords(runtime, {
      plan,
      client: connection.client,
      ...optional("desired", prepared.desired),
      outputs,
    });
    try {
      await confirmApply(io, values["yes"] === true, plan, connection.label);
      // Confirmed: what the plan saw is recorded before the first change is sent.
      await recordRunState(runtime, plan);
    } catch (err) {
      await passwords.close();
      throw err;
    }
    // Names the run (log and journal lines, report, removals): docs/audits.md.
    const runId = randomUUID();
    const run: Runtime = { ...runtime, logger: runtime.logger.child({ runId }) };
    const { result, exitCode } = await executePlan(run, {
      runId,
      plan,
      client: connection.client,
      passwords,
      ...optional("desired", prepared.desired),
      ...optional("stale", prepared.stale),
      outputs,
    });
    metrics.result = result;
    await recordDone(run, { plan, result, exitCode, runId, desired: prepared.desired });
    return conflictExit(runtime.logger, plan, revertExit(runtime.logger, plan, exitCode, false));
  } finally {
    await connection.close();
  }
}

/**
 * What a run records once its steps are done: the removals it carried out (the review dates
 * them), what it changed (the revert guard), and after a wholly successful run the picked groups' sizes and the directory's picture.
 */
async function recordDone(
  runtime: Runtime,
  o: { plan: Plan; result: ApplyResult; exitCode: number; runId: string; desired: DesiredState | undefined },
): Promise<void> {
  await recordRemovals(runtime, o.plan, o.result, { id: o.runId, at: Date.now() });
  await recordChanges(runtime, o.plan, o.result, o.runId);
  if (o.exitCode !== ExitCode.ok) return;
  await recordGroupSizes(runtime, o.desired?.evidence);
  await o.desired?.afterApply?.(afterApplyRun(o.plan, o.desired));
}

/** What the changes file keeps of this run: the managed users after a whole listing (those listed, or the people now made). */
function afterApplyRun(
  plan: Plan,
  desired: DesiredState | undefined,
): { managedUsers: number; listing: "whole" | "targeted" } {
  const present = desired?.users.filter((u) => u.state === "present").length ?? 0;
  return {
    managedUsers: Math.max(plan.deleteGuard.managedUsers, present),
    listing: plan.source?.read?.listing ?? "whole",
  };
}

async function confirmApply(io: Io, yes: boolean, plan: Plan, label: string): Promise<void> {
  if (yes) return;
  if (!canPrompt(io)) {
    throw new SafetyRefusal({
      message: `refusing to apply without confirmation: there is no terminal to ask on. Review the plan (${usersyncCommand()} plan) and re-run with --yes.`,
    });
  }
  const ok = await confirm(io, confirmQuestion(plan, label));
  if (!ok)
    throw new SafetyRefusal({ message: 'apply cancelled: the answer was not "yes". Nothing was changed.' });
}
