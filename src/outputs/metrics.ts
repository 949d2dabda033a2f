/**
 * The metrics file of a run: written at the end of every run, failed ones included (with their
 * exit code), keeping the last success time of earlier runs; and/or pushed to a Pushgateway.
 */
import { readFile } from "node:fs/promises";
import type { ApplyResult } from "../apply/index.js";
import type { Plan } from "../plan/index.js";
import type { ServiceClient } from "../service/index.js";
import { previousLastSuccess, renderMetrics } from "../report/index.js";
import { writeFileAtomic } from "../files.js";
import type { Logger } from "pino";
import type { Config } from "../config/index.js";
import { pushMetrics, type MetricsPush } from "./pushgateway.js";

export interface MetricsTargets {
  /** The textfile (node_exporter's textfile collector). */
  file?: string | undefined;
  /** The Pushgateway (batch jobs in Kubernetes). */
  push?: MetricsPush | undefined;
  logger: Logger;
  /**
   * On every sample: `organization`, the target's name in a config with targets
   * (docs/multi-org.md), else the host of target.baseUrl; the alerts are per organization.
   */
  labels?: Record<string, string>;
  /** Called once the metrics were written (or there was nowhere to write them). */
  onFinish?: () => void;
}

export interface RunMetrics {
  /** What the run got to: set as it goes. */
  client?: ServiceClient;
  plan?: Plan;
  result?: ApplyResult;
  /** Writes the file (when one was asked for) and returns `exitCode`. */
  finish(exitCode: number): Promise<number>;
}

export function runMetrics(command: "plan" | "apply", targets: MetricsTargets): RunMetrics {
  const started = performance.now();
  const { file, push } = targets;
  const metrics: RunMetrics = {
    async finish(exitCode) {
      targets.onFinish?.();
      if (file === undefined && push === undefined) return exitCode;
      let previous: number | undefined;
      try {
        if (file !== undefined) previous = previousLastSuccess(await readFile(file, "utf8"), command);
      } catch {
        previous = undefined;
      }
      const stats = metrics.client?.stats() ?? { requests: 0, retries: 0 };
      const text = renderMetrics({
        command,
        ...(metrics.plan ? { plan: metrics.plan } : {}),
        ...(metrics.result ? { result: metrics.result } : {}),
        exitCode,
        durationSeconds: (performance.now() - started) / 1000,
        requests: stats.requests,
        retries: stats.retries,
        now: Math.floor(Date.now() / 1000),
        ...(previous !== undefined ? { previousLastSuccess: previous } : {}),
        ...(targets.labels ? { labels: targets.labels } : {}),
      });
      if (file !== undefined) await writeFileAtomic(file, text);
      if (push !== undefined) await pushMetrics(push, text, targets.logger);
      return exitCode;
    },
  };
  return metrics;
}

/** The textfile (`--metrics-file` or output.metricsFile, resolved by cli/output-paths.ts) and the Pushgateway (output.metricsPush*). */
export function metricsTargets(
  file: string | undefined,
  runtime: {
    config: Config & { targetName?: string };
    logger: Logger;
    outcome?: { metricsRecorded?: boolean } | undefined;
  },
): MetricsTargets {
  const { output } = runtime.config;
  const organization = organizationLabel(runtime.config);
  return {
    file,
    push:
      output.metricsPushUrl === undefined
        ? undefined
        : { url: output.metricsPushUrl, job: output.metricsPushJob, grouping: output.metricsPushGrouping },
    logger: runtime.logger,
    ...(organization !== undefined ? { labels: { organization } } : {}),
    onFinish: () => {
      if (runtime.outcome !== undefined) runtime.outcome.metricsRecorded = true;
    },
  };
}

/**
 * The organization a run's metrics name: a target's name, else the host (and port) of the one
 * organization's URL, so one alert rule serves a CronJob and an Indexed Job alike
 * (deploy/kubernetes/overlays/alerts). Undefined for a run with no URL (the embedded demo).
 */
export function organizationLabel(config: Config & { targetName?: string }): string | undefined {
  if (config.targetName !== undefined) return config.targetName;
  if (config.target.baseUrl === undefined) return undefined;
  try {
    return new URL(config.target.baseUrl).host || undefined;
  } catch {
    return undefined;
  }
}
