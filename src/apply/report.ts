/**
 * The apply report: JSON for machines (`--report report.json`) and a text summary for a person.
 * Neither carries a secret: outcomes hold ids, targets, reasons and error messages only.
 */
import type { Plan } from "../plan/types.js";
import { exitCodeForApply } from "./outcomes.js";
import { OUTCOMES, type ApplyResult, type Outcome, type StepOutcome } from "./types.js";

export const APPLY_REPORT_FORMAT_VERSION = 1;

export interface ApplyReport {
  formatVersion: typeof APPLY_REPORT_FORMAT_VERSION;
  profile: Plan["profile"];
  mode: Plan["mode"];
  inputFingerprint: string;
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
    requests: number;
    retries: number;
    durationMs: number;
  };
  steps: Array<StepOutcome & { dependsOn: string[] }>;
}

export function buildApplyReport(result: ApplyResult, plan: Plan): ApplyReport {
  const deps = new Map(plan.steps.map((s) => [s.id, s.dependsOn]));
  const report: ApplyReport = {
    formatVersion: APPLY_REPORT_FORMAT_VERSION,
    profile: plan.profile,
    mode: plan.mode,
    inputFingerprint: plan.inputFingerprint,
    exitCode: exitCodeForApply(result),
    summary: {
      total: result.outcomes.length,
      counts: { ...result.counts },
      done: result.outcomes.length - notStartedCount(result),
      notStarted: notStartedCount(result),
      failuresByCause: failuresByCause(result),
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

const n = (x: number): string => x.toLocaleString("en-US");

/** "636 done, 3,364 not started (interrupted)" and the failures by cause: the gist of a stop. */
export function stopLines(result: ApplyResult): string[] {
  const lines: string[] = [];
  const notStarted = notStartedCount(result);
  if (result.stoppedBy)
    lines.push(
      `${n(result.outcomes.length - notStarted)} done, ${n(notStarted)} not started (${result.stoppedBy})`,
    );
  const causes = failuresByCause(result);
  if (causes.length > 0) lines.push(`Failures by cause (${causes.length}):`);
  for (const c of causes.slice(0, 10)) lines.push(`  ${n(c.count)} × ${c.cause} (e.g. ${c.example})`);
  if (causes.length > 10)
    lines.push(`  ... and ${causes.length - 10} more causes: see the apply report (--report FILE)`);
  return lines;
}

const COLORS: Record<Outcome, string> = {
  succeeded: "\x1b[32m",
  failed: "\x1b[31m",
  skipped: "\x1b[33m",
  stale: "\x1b[35m",
  heldBack: "\x1b[36m",
};
const RESET = "\x1b[0m";

export interface SummaryOptions {
  color: boolean;
  /**
   * Steps listed per outcome (default 100): a circuit breaker in a 100,000-step run must not
   * print 100,000 lines. The JSON report always lists every step.
   */
  maxListed?: number;
}

/** Text for a person: counts, requests, retries, duration, then the steps that did not succeed. */
export function renderApplySummary(result: ApplyResult, options: SummaryOptions): string {
  const maxListed = options.maxListed ?? 100;
  const paint = (outcome: Outcome, text: string): string =>
    options.color ? `${COLORS[outcome]}${text}${RESET}` : text;
  const lines: string[] = [];
  const counts = OUTCOMES.map((o) => paint(o, `${result.counts[o]} ${o}`)).join(", ");
  lines.push(`Apply finished: ${counts} (${result.outcomes.length} steps)`);
  lines.push(
    `Requests: ${result.requests} sent, ${result.retries} retried; duration ${formatDuration(result.durationMs)}`,
  );
  if (result.stoppedBy) lines.push(paint("failed", `Stopped: ${result.stopReason ?? result.stoppedBy}`));
  lines.push(...stopLines(result));
  for (const outcome of ["failed", "skipped", "stale", "heldBack"] as const) {
    // Steps never started are counted above, not listed one by one with the same reason.
    const list = result.outcomes.filter(
      (o) => o.outcome === outcome && !(o.outcome === "skipped" && o.cause === "stopped"),
    );
    if (list.length === 0) continue;
    lines.push("", paint(outcome, `${outcome} (${list.length}):`));
    for (const o of list.slice(0, maxListed))
      lines.push(`  ${o.stepId}: ${o.error?.message ?? o.reason ?? ""}`);
    if (list.length > maxListed)
      lines.push(
        `  ... and ${list.length - maxListed} more ${outcome} steps: see the apply report (--report FILE)`,
      );
  }
  return `${lines.join("\n")}\n`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}
