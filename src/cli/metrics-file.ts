/**
 * The metrics file of a run: written at the end of every run, failed ones included (with their
 * exit code), keeping the last success time of earlier runs.
 */
import { readFile } from "node:fs/promises";
import type { ApplyResult } from "../apply/types.js";
import type { Plan } from "../plan/types.js";
import type { ServiceClient } from "../service/types.js";
import { previousLastSuccess, renderMetrics } from "../report/metrics.js";
import { writeFileAtomic } from "../files.js";

export interface RunMetrics {
  /** What the run got to: set as it goes. */
  client?: ServiceClient;
  plan?: Plan;
  result?: ApplyResult;
  /** Writes the file (when one was asked for) and returns `exitCode`. */
  finish(exitCode: number): Promise<number>;
}

export function runMetrics(command: "plan" | "apply", file: string | undefined): RunMetrics {
  const started = performance.now();
  const metrics: RunMetrics = {
    async finish(exitCode) {
      if (file === undefined) return exitCode;
      let previous: number | undefined;
      try {
        previous = previousLastSuccess(await readFile(file, "utf8"), command);
      } catch {
        previous = undefined;
      }
      const stats = metrics.client?.stats() ?? { requests: 0, retries: 0 };
      await writeFileAtomic(
        file,
        renderMetrics({
          command,
          ...(metrics.plan ? { plan: metrics.plan } : {}),
          ...(metrics.result ? { result: metrics.result } : {}),
          exitCode,
          durationSeconds: (performance.now() - started) / 1000,
          requests: stats.requests,
          retries: stats.retries,
          now: Math.floor(Date.now() / 1000),
          ...(previous !== undefined ? { previousLastSuccess: previous } : {}),
        }),
      );
      return exitCode;
    },
  };
  return metrics;
}
