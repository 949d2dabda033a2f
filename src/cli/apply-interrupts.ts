/**
 * Ctrl-C and SIGTERM during an apply. The first lets the running steps finish: no new step
 * starts, the run ends as usual with its report and summary (exit 130). A second one does not
 * wait for the running steps: it says how many were still running (they may or may not have
 * been carried out), writes the report and the summary of what had settled, the rest counted
 * as not started, and exits 130 at once. Either way the end is reported once.
 */
import type { Logger } from "pino";
import { emptyCounts } from "../apply/index.js";
import type { ApplyResult, Journal, Progress, StepOutcome } from "../apply/index.js";
import { ExitCode } from "../errors.js";
import { setLineOwner } from "../logging.js";
import type { Plan } from "../plan/index.js";
import type { ServiceClient } from "../service/index.js";
import type { Io } from "./io.js";
import { onInterrupt } from "./interrupt.js";

export interface ApplyInterrupts {
  /** Aborted at the first interrupt: no new step starts. */
  signal: AbortSignal;
  /** The run's journal (if any), every settled outcome also kept for a second interrupt's report. */
  journal(journal: Journal | undefined): Journal;
  /** Told the executor's progress: how many steps are running. */
  progress(p: Progress): void;
  /** Reports the run's end, unless a second interrupt is already reporting it (then never returns). */
  reportOnce(result: ApplyResult): Promise<void>;
  release(): void;
}

export function applyInterrupts(o: {
  plan: Plan;
  client: ServiceClient;
  logger: Logger;
  io: Io;
  report: (result: ApplyResult) => Promise<void>;
}): ApplyInterrupts {
  const abort = new AbortController();
  const settled: StepOutcome[] = [];
  const started = performance.now();
  const before = o.client.stats();
  let running = 0;
  let journal: Journal | undefined;
  let ending: Promise<void> | undefined;
  const stopNow = async (): Promise<never> => {
    setLineOwner(undefined);
    if (o.io.stderr.isTTY) o.io.stderr.write("\n");
    const reason = `interrupted twice: stopped at once, without waiting for ${running} running step(s), which may or may not have been carried out; run again to finish, it converges`;
    o.logger.warn({ running }, reason);
    const stats = o.client.stats();
    const result = unfinishedResult(o.plan, settled, reason, {
      durationMs: Math.round(performance.now() - started),
      requests: stats.requests - before.requests,
      retries: stats.retries - before.retries,
    });
    try {
      // The journal gets half a second to write what it holds.
      await Promise.race([journal?.flush().catch(() => {}), new Promise((r) => setTimeout(r, 500))]);
      await o.report(result);
    } finally {
      process.exit(ExitCode.interrupted);
    }
  };
  const release = onInterrupt((signal) => {
    if (!abort.signal.aborted) {
      o.logger.warn({ signal }, "interrupted: finishing the running steps; no new step starts");
      abort.abort();
    } else ending ??= stopNow();
  });
  return {
    signal: abort.signal,
    journal: (j) => {
      journal = j;
      return {
        record: (outcome) => {
          settled.push(outcome);
          j?.record(outcome);
        },
        flush: async () => j?.flush(),
        close: async () => j?.close(),
      };
    },
    progress: (p) => void (running = p.running),
    reportOnce: (result) => (ending ??= o.report(result)),
    release,
  };
}

/** The run so far: the settled outcomes, and every other step not started (or cut off running). */
function unfinishedResult(
  plan: Plan,
  settled: readonly StepOutcome[],
  reason: string,
  figures: Pick<ApplyResult, "durationMs" | "requests" | "retries">,
): ApplyResult {
  const byId = new Map(settled.map((o) => [o.stepId, o]));
  const counts = emptyCounts();
  const outcomes = plan.steps.map((step): StepOutcome => {
    const o = byId.get(step.id) ?? {
      stepId: step.id,
      kind: step.kind,
      target: step.target,
      outcome: "skipped",
      attempts: 0,
      durationMs: 0,
      reason: `not finished: ${reason}`,
      cause: "stopped",
    };
    counts[o.outcome] += 1;
    return o;
  });
  return { outcomes, counts, stoppedBy: "interrupted", stopReason: reason, ...figures };
}
