/**
 * The apply report: JSON for machines (`--report report.json`); src/report/apply-summary.ts
 * renders the text a person reads from the same result. Neither carries a secret: outcomes hold ids, targets, reasons and error messages only.
 */
import { summarizeDone, type PlanSummary } from "../plan/summary.js";
import type { Plan } from "../plan/types.js";
import { exitCodeForApply } from "./outcomes.js";
import type { ApplyResult, StepOutcome } from "./types.js";

export const APPLY_REPORT_FORMAT_VERSION = 1;

export interface ApplyReport {
  formatVersion: typeof APPLY_REPORT_FORMAT_VERSION;
  profile: Plan["profile"];
  mode: Plan["mode"];
  inputFingerprint: string;
  /** The apply run's id (its log lines, journal lines and the state file's removals carry it). */
  runId?: string;
  exitCode: number;
  stoppedBy?: ApplyResult["stoppedBy"];
  stopReason?: string;
  summary: {
    total: number;
    counts: ApplyResult["counts"];
    /** Steps that ran to an outcome (not those settled as "not started" by a stop). */
    done: number;
    /** Steps never started because the run stopped (interrupt, fatal error, circuit breaker). */
    notStarted: number;
    /** Failed steps grouped by cause, largest first, one example each. */
    failuresByCause: FailureCause[];
    /** People whose every step succeeded, by what was done to them (the text summary's "Done:"). */
    people: { added: number; changed: number; revoked: number; removed: number };
    /** Groups whose step succeeded, by what was done to them. */
    groups: { added: number; changed: number; removed: number };
    /** Permission changes (assignee × workspace or organization) of succeeded steps; only when the plan manages permissions. */
    permissions?: { granted: number; revoked: number };
    requests: number;
    retries: number;
    durationMs: number;
  };
  steps: Array<StepOutcome & { dependsOn: string[] }>;
}

export function buildApplyReport(result: ApplyResult, plan: Plan, runId?: string): ApplyReport {
  const deps = new Map(plan.steps.map((s) => [s.id, s.dependsOn]));
  const done = doneSummary(result, plan);
  const report: ApplyReport = {
    formatVersion: APPLY_REPORT_FORMAT_VERSION,
    profile: plan.profile,
    mode: plan.mode,
    inputFingerprint: plan.inputFingerprint,
    ...(runId !== undefined ? { runId } : {}),
    exitCode: exitCodeForApply(result),
    summary: {
      total: result.outcomes.length,
      counts: { ...result.counts },
      done: result.outcomes.length - notStartedCount(result),
      notStarted: notStartedCount(result),
      failuresByCause: failuresByCause(result),
      people: {
        added: done.people.add,
        changed: done.people.change,
        revoked: done.people.revoke,
        removed: done.people.remove,
      },
      groups: { added: done.groups.add, changed: done.groups.change, removed: done.groups.remove },
      ...(done.permissions !== undefined
        ? { permissions: { granted: done.permissions.grant, revoked: done.permissions.revoke } }
        : {}),
      requests: result.requests,
      retries: result.retries,
      durationMs: result.durationMs,
    },
    steps: result.outcomes.map((o) => ({ ...o, dependsOn: deps.get(o.stepId) ?? [] })),
  };
  if (result.stoppedBy) {
    report.stoppedBy = result.stoppedBy;
    if (result.stopReason !== undefined) report.stopReason = result.stopReason;
  }
  return report;
}

export interface FailureCause {
  cause: string;
  count: number;
  /** One failed step with this cause. */
  example: string;
}

/** Done summaries by run (a run applies one plan): the report and the text summary both read it, 0.5 s at 20,000 people. */
const doneSummaries = new WeakMap<ApplyResult, PlanSummary>();

/** What a run carried out, as a plan summary of the people and groups whose every step succeeded. */
export function doneSummary(result: ApplyResult, plan: Plan): PlanSummary {
  let done = doneSummaries.get(result);
  if (done === undefined) {
    const succeeded = new Set(result.outcomes.filter((o) => o.outcome === "succeeded").map((o) => o.stepId));
    done = summarizeDone(plan, succeeded);
    doneSummaries.set(result, done);
  }
  return done;
}

export function notStartedCount(result: ApplyResult): number {
  return result.outcomes.filter((o) => o.outcome === "skipped" && o.cause === "stopped").length;
}

/** Failures grouped by what went wrong (status and message, the step's own target left out). */
export function failuresByCause(result: ApplyResult): FailureCause[] {
  const groups = new Map<string, FailureCause>();
  for (const o of result.outcomes) {
    if (o.outcome !== "failed") continue;
    const message = (o.error?.message ?? o.reason ?? "failed").split(o.target).join("…");
    const cause = message;
    const g = groups.get(cause);
    if (g) g.count += 1;
    else groups.set(cause, { cause, count: 1, example: o.stepId });
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}
