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
  for (const outcome of ["failed", "skipped", "stale", "heldBack"] as const) {
    const list = result.outcomes.filter((o) => o.outcome === outcome);
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
