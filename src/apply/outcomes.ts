/**
 * Outcome values: how a step that did not run is described (held back, stale, skipped and why,
 * down to the root cause), how an error becomes a report-safe value, and the run's exit code.
 */
import type { Logger } from "pino";
import { ExitCode, HttpError } from "../errors.js";
import type { Step } from "../plan/types.js";
import { StepFailure } from "./run-step.js";
import type { ApplyResult, Outcome, SkipCause, StepError, StepOutcome } from "./types.js";

export function notRun(step: Step, outcome: Outcome, reason: string): StepOutcome {
  return {
    stepId: step.id,
    kind: step.kind,
    target: step.target,
    outcome,
    attempts: 0,
    durationMs: 0,
    reason,
  };
}

export interface Root {
  desc: string;
  cause: SkipCause;
}

const verb: Record<Outcome, string> = {
  succeeded: "succeeded",
  failed: "failed",
  skipped: "was skipped",
  stale: "is stale",
  heldBack: "was held back",
};

/** The root cause of a (possibly skipped) outcome, so long chains name it without nesting reasons. */
export function rootOf(o: StepOutcome, roots: ReadonlyMap<string, Root>): Root {
  if (o.outcome === "skipped")
    return roots.get(o.stepId) ?? { desc: o.reason ?? o.stepId, cause: o.cause ?? "failed" };
  return { desc: `${o.stepId} ${verb[o.outcome]}`, cause: o.outcome as SkipCause };
}

/** Names the dependency and, when it was itself skipped, the root cause. */
export function skippedBecause(step: Step, dep: StepOutcome, root: Root): StepOutcome {
  const reason =
    dep.outcome === "skipped"
      ? `dependency ${dep.stepId} was skipped; root cause: ${root.desc}`
      : `dependency ${dep.stepId} ${verb[dep.outcome]}`;
  return { ...notRun(step, "skipped", reason), cause: root.cause };
}

export function toStepError(err: unknown): StepError {
  if (err instanceof HttpError) {
    const e: StepError = { message: err.message, status: err.status };
    if (err.traceId !== undefined) e.traceId = err.traceId;
    return e;
  }
  if (err instanceof StepFailure) {
    const e: StepError = { message: err.message };
    if (err.status !== undefined) e.status = err.status;
    if (err.traceId !== undefined) e.traceId = err.traceId;
    return e;
  }
  return { message: err instanceof Error ? err.message : String(err) };
}

export function logStep(logger: Logger | undefined, o: StepOutcome): void {
  if (!logger) return;
  const fields = {
    stepId: o.stepId,
    kind: o.kind,
    target: o.target,
    outcome: o.outcome,
    attempts: o.attempts,
    durationMs: o.durationMs,
    reason: o.reason,
    error: o.error?.message,
    recovered: o.recovered,
  };
  // One line per step is for debugging: at info a 4,000-step run would print 4,000 lines (and
  // an interrupt thousands of "skipped"); failures are grouped by cause at the end instead.
  if (o.outcome === "failed") logger.warn(fields, "step failed");
  else logger.debug(fields, `step ${o.outcome}`);
}

/** 0: all done; 1: a step failed, was skipped because of a failure, or the run stopped; 3: only safety guards (stale, held back); 130: interrupted. */
export function exitCodeForApply(result: ApplyResult): number {
  if (result.stoppedBy === "interrupted") return ExitCode.interrupted;
  if (result.stoppedBy || result.counts.failed > 0) return ExitCode.failed;
  const failedSkip = result.outcomes.some(
    (o) => o.outcome === "skipped" && (o.cause === "failed" || o.cause === "stopped" || o.cause === "cycle"),
  );
  if (failedSkip) return ExitCode.failed;
  if (result.counts.stale > 0 || result.counts.heldBack > 0) return ExitCode.refused;
  return ExitCode.ok;
}
