/**
 * The text a person reads after an apply: what happened, in counts and words, then the steps
 * that did not succeed. The JSON report (src/apply/report.ts) carries the same facts for
 * machines, with step ids; here a step is said as what it did ("create login jane@x.com").
 */
import {
  failuresByCause,
  notStartedCount,
  doneSummary,
  type ApplyResult,
  type Outcome,
} from "../apply/index.js";
import { isStepKind, nounOf } from "../plan/kinds.js";
import { donePhrase, num } from "./summary-lines.js";
import type { Plan, StepKind } from "../plan/types.js";

const COLORS: Record<Outcome, string> = {
  succeeded: "\x1b[32m",
  failed: "\x1b[31m",
  skipped: "\x1b[33m",
  stale: "\x1b[35m",
  heldBack: "\x1b[36m",
};
const RESET = "\x1b[0m";

/** Outcomes as a person says them; "skipped" here means a step it needs did not succeed. */
const OUTCOME_WORDS: Record<Outcome, string> = {
  succeeded: "succeeded",
  failed: "failed",
  skipped: "skipped",
  stale: "stale",
  heldBack: "held back",
};
const LISTED: readonly Outcome[] = ["failed", "skipped", "stale", "heldBack"];

/** What a step does, by its kind: a login is the built-in IdP user, a user the mapping. */
const STEP_WORDS: Record<StepKind, string> = {
  createCredentials: "create login",
  updateCredentials: "update login",
  deleteCredentials: "revoke login",
  createMapping: "create user",
  updateMapping: "update user",
  deleteMapping: "remove user",
  createGroup: "create group",
  updateGroup: "update group",
  deleteGroup: "delete group",
  addMembers: "add members to group",
  removeMembers: "remove members from group",
  grantWorkspacePermissions: "grant permissions on",
  revokeWorkspacePermissions: "revoke permissions on",
  createDataFilter: "create data filter on",
  updateDataFilter: "update data filter on",
  deleteDataFilter: "delete data filter on",
  deleteApiToken: "delete API token of",
  grantOrganizationPermissions: "grant permissions of the",
  revokeOrganizationPermissions: "revoke permissions of the",
};

/**
 * `createCredentials:jane@x.com` → `create login jane@x.com`, `addMembers:sales#2` → `add members
 * to group sales (request 2)`; any other text is kept.
 */
export function stepInWords(stepId: string): string {
  const sep = stepId.indexOf(":");
  const kind = stepId.slice(0, Math.max(0, sep));
  if (!isStepKind(kind)) return stepId;
  const target = stepId.slice(sep + 1);
  const batch = nounOf(kind) === "members" ? /^(.*)#(\d+)$/.exec(target) : null;
  return `${STEP_WORDS[kind]} ${batch ? `${batch[1]} (request ${batch[2]})` : target}`;
}

const STEP_ID = new RegExp(`\\b(${Object.keys(STEP_WORDS).join("|")}):([^\\s,;()]+)`, "g");
/** Step ids inside a reason ("dependency createCredentials:x failed") said in words. */
export const stepIdsInWords = (text: string): string =>
  text.replace(STEP_ID, (id: string) => stepInWords(id));

export interface SummaryOptions {
  color: boolean;
  /** The plan that was applied: with it, a line says in people and groups what was done. */
  plan?: Plan;
  /**
   * Steps listed per outcome (default 100): a circuit breaker in a 100,000-step run must not
   * print 100,000 lines. The JSON report always lists every step.
   */
  maxListed?: number;
}

/** The failures by cause: the gist of a run that failed or stopped (the headline has the counts). */
export function stopLines(result: ApplyResult): string[] {
  const lines: string[] = [];
  const causes = failuresByCause(result);
  if (causes.length > 0) lines.push(`Failures by cause (${causes.length}):`);
  for (const c of causes.slice(0, 10))
    lines.push(`  ${num(c.count)} × ${stepIdsInWords(c.cause)} (e.g. ${stepInWords(c.example)})`);
  if (causes.length > 10)
    lines.push(`  ... and ${causes.length - 10} more causes: see the apply report (--report FILE)`);
  return lines;
}

/**
 * The headline counts, zeros left out: the one place a run's counts are said. Steps a stop left
 * unstarted are not "skipped" to a person: they are counted as not started.
 */
function headline(result: ApplyResult, paint: (o: Outcome, t: string) => string): string {
  const counts: Record<Outcome, number> = { ...result.counts, skipped: 0 };
  for (const o of result.outcomes) if (o.outcome === "skipped" && o.cause !== "stopped") counts.skipped += 1;
  const parts = (Object.keys(counts) as Outcome[])
    .filter((o) => counts[o] > 0)
    .map((o) => paint(o, `${num(counts[o])} ${OUTCOME_WORDS[o]}`));
  const notStarted = notStartedCount(result);
  if (notStarted > 0) parts.push(paint("skipped", `${num(notStarted)} not started`));
  const of = `${num(result.outcomes.length)} step${result.outcomes.length === 1 ? "" : "s"}`;
  const verb = result.stoppedBy ? "stopped" : "finished";
  return `Apply ${verb}: ${parts.length > 0 ? `${parts.join(", ")} (of ${of})` : `nothing done (of ${of})`}`;
}

/** "Done: 39 people (21 added, …) and 4 groups (3 added)": people and groups whose every step succeeded. */
function doneLine(plan: Plan, result: ApplyResult): string | undefined {
  const phrase = donePhrase(doneSummary(result, plan));
  return phrase === "" ? undefined : `Done: ${phrase}`;
}

/** Text for a person: counts, requests, retries, duration, then the steps that did not succeed. */
export function renderApplySummary(result: ApplyResult, options: SummaryOptions): string {
  const maxListed = options.maxListed ?? 100;
  const paint = (outcome: Outcome, text: string): string =>
    options.color ? `${COLORS[outcome]}${text}${RESET}` : text;
  const lines: string[] = [headline(result, paint)];
  const done = options.plan ? doneLine(options.plan, result) : undefined;
  if (done) lines.push(done);
  lines.push(
    `Requests: ${num(result.requests)} sent, ${num(result.retries)} retried; duration ${formatDuration(result.durationMs)}`,
  );
  if (result.stoppedBy) lines.push(paint("failed", `Stopped: ${result.stopReason ?? result.stoppedBy}`));
  lines.push(...stopLines(result));
  for (const outcome of LISTED) {
    // Steps never started are counted above, not listed one by one with the same reason.
    const list = result.outcomes.filter(
      (o) => o.outcome === outcome && !(o.outcome === "skipped" && o.cause === "stopped"),
    );
    if (list.length === 0) continue;
    lines.push("", paint(outcome, `${OUTCOME_WORDS[outcome]} (${num(list.length)}):`));
    // Steps with the same reason (30 deletions one guard held back) say it once, then the steps.
    const byReason = new Map<string, { count: number; shown: string[] }>();
    list.forEach((o, i) => {
      const why = stepIdsInWords(o.error?.message ?? o.reason ?? "");
      const entry = byReason.get(why) ?? byReason.set(why, { count: 0, shown: [] }).get(why)!;
      entry.count += 1;
      if (i < maxListed) entry.shown.push(stepInWords(o.stepId));
    });
    for (const [why, { count, shown }] of byReason)
      if (count === 1) lines.push(...shown.map((s) => `  ${s}: ${why}`));
      else if (shown.length > 0) lines.push(`  ${num(count)} steps: ${why}`, ...shown.map((s) => `    ${s}`));
    if (list.length > maxListed)
      lines.push(
        `  ... and ${num(list.length - maxListed)} more ${OUTCOME_WORDS[outcome]} steps: see the apply report (--report FILE)`,
      );
  }
  return `${lines.join("\n")}\n`;
}

function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}
