/**
 * Prometheus text exposition format, for node_exporter's textfile collector: written once at the
 * end of every run. `usersync_last_success_timestamp_seconds` is only advanced by a run that
 * succeeded, so an alert on its age catches a job that keeps failing.
 */
import type { ApplyResult } from "../apply/types.js";
import type { Plan } from "../plan/types.js";

export interface MetricsInput {
  command: "plan" | "apply";
  plan?: Plan;
  result?: ApplyResult;
  /** Exit code of the run. */
  exitCode: number;
  durationSeconds: number;
  /** Requests sent (listing included) and retries, from the client. */
  requests: number;
  retries: number;
  /** Unix seconds now. */
  now: number;
  /** The previous file's last-success value, kept when this run did not succeed. */
  previousLastSuccess?: number;
  /** Labels on every sample: `organization` (a target's name, or the host of the one organization's URL). */
  labels?: Record<string, string>;
}

interface Sample {
  labels?: Record<string, string>;
  value: number;
}

function metric(name: string, type: "gauge" | "counter", help: string, samples: Sample[]): string {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`];
  for (const s of samples) {
    const labels = s.labels
      ? `{${Object.entries(s.labels)
          .map(([k, v]) => `${k}="${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`)
          .join(",")}}`
      : "";
    lines.push(`${name}${labels} ${Number.isFinite(s.value) ? s.value : 0}`);
  }
  return lines.join("\n");
}

function stepsBlock(result: ApplyResult): string {
  const byKey = new Map<string, Sample>();
  for (const o of result.outcomes) {
    const key = `${o.kind}\u0000${o.outcome}`;
    const s = byKey.get(key) ?? { labels: { kind: o.kind, outcome: o.outcome }, value: 0 };
    s.value += 1;
    byKey.set(key, s);
  }
  const samples = [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, s]) => s);
  return metric("usersync_steps", "gauge", "Steps of the last run by kind and outcome.", samples);
}

/** The people whose deletion the guard held back: all the plan wanted, or none (the guard is all or nothing). */
function heldBackDeletions(plan: Plan | undefined): number {
  if (plan === undefined) return 0;
  const { wanted, limit } = plan.deleteGuard;
  return wanted > limit ? wanted : 0;
}

export function renderMetrics(input: MetricsInput): string {
  const success = input.exitCode === 0 || (input.command === "plan" && input.exitCode === 2);
  const blocks: string[] = [];
  const command = { command: input.command };

  if (input.result) blocks.push(stepsBlock(input.result));
  if (input.plan) blocks.push(...planMetrics(input.plan));
  blocks.push(
    metric(
      "usersync_deletions_held_back",
      "gauge",
      "User deletions the deletion guard (policy.maxDeletes) held back in the last run; 0 when it held none back or the run did not plan.",
      [{ labels: command, value: heldBackDeletions(input.plan) }],
    ),
    metric("usersync_requests", "gauge", "HTTP requests the last run sent, retries included.", [
      { labels: command, value: input.requests },
    ]),
    metric("usersync_retries", "gauge", "Retried requests in the last run.", [
      { labels: command, value: input.retries },
    ]),
    metric("usersync_run_duration_seconds", "gauge", "Wall time of the last run.", [
      { labels: command, value: Math.round(input.durationSeconds * 1000) / 1000 },
    ]),
    metric(
      "usersync_last_exit_code",
      "gauge",
      "Exit code of the last run (0 done, 1 failed, 2 changes, 3 refused, 4 invalid, 5 source unavailable).",
      [{ labels: command, value: input.exitCode }],
    ),
    metric("usersync_last_run_timestamp_seconds", "gauge", "When the last run ended.", [
      { labels: command, value: input.now },
    ]),
  );
  const lastSuccess = success ? input.now : input.previousLastSuccess;
  if (lastSuccess !== undefined) {
    blocks.push(
      metric("usersync_last_success_timestamp_seconds", "gauge", "When a run last ended successfully.", [
        { labels: command, value: lastSuccess },
      ]),
    );
  }
  return withLabels(`${blocks.join("\n")}\n`, input.labels);
}

/** `labels` added to every sample line (after the sample's own). */
function withLabels(text: string, labels: Record<string, string> | undefined): string {
  if (labels === undefined || Object.keys(labels).length === 0) return text;
  const extra = Object.entries(labels)
    .map(([k, v]) => `${k}="${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`)
    .join(",");
  return text.replace(/^([a-z_]+)(?:\{([^}]*)\})? /gm, (_m, name: string, own?: string) =>
    own ? `${name}{${own},${extra}} ` : `${name}{${extra}} `,
  );
}

/** What the run's plan contained: changes by action, people pending and kept by the mode. */
function planMetrics(plan: Plan): string[] {
  const c = plan.counts;
  return [
    metric("usersync_plan_changes", "gauge", "Changes the last plan contained, by action.", [
      { labels: { action: "create" }, value: c.create },
      { labels: { action: "update" }, value: c.update },
      { labels: { action: "delete" }, value: c.delete },
      { labels: { action: "heldBack" }, value: c.heldBack },
    ]),
    metric(
      "usersync_people_pending",
      "gauge",
      "People missing from the source who wait for policy.revokeAfter (0 without it).",
      [{ value: plan.grace?.pending.length ?? 0 }],
    ),
    metric(
      "usersync_people_kept_by_mode",
      "gauge",
      "People not in the source whom mode full would delete, kept because the mode is incremental.",
      [{ value: plan.keptByMode ?? 0 }],
    ),
    ...readMetrics(plan),
  ];
}

/** Changes-only runs (docs/sources.md): 1 on the way the last plan read and listed, with why it read whole. */
function readMetrics(plan: Plan): string[] {
  const r = plan.source?.read;
  if (r === undefined) return [];
  return [
    metric(
      "usersync_source_read",
      "gauge",
      "How the last plan read its directory (read: changes or whole; reason: why whole) and listed the service (listing: whole or targeted).",
      [{ labels: { read: r.source, reason: r.reason ?? "", listing: r.listing }, value: 1 }],
    ),
    metric(
      "usersync_source_changes",
      "gauge",
      "Directory changes the last plan read (0 after a whole read).",
      [{ value: r.changes ?? 0 }],
    ),
  ];
}

/** Reads `usersync_last_success_timestamp_seconds` back from a previous metrics file. */
export function previousLastSuccess(text: string, command: string): number | undefined {
  const re = new RegExp(
    `^usersync_last_success_timestamp_seconds\\{command="${command}"(?:,[^}]*)?\\} (\\d+(?:\\.\\d+)?)$`,
    "m",
  );
  const m = re.exec(text);
  return m?.[1] !== undefined ? Number(m[1]) : undefined;
}
