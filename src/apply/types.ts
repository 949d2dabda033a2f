/**
 * Values the executor produces. A step failure is never an exception: every step ends with
 * one `StepOutcome`, and the run with one `ApplyResult`.
 */
import type { StepKind } from "../plan/types.js";

export type Outcome = "succeeded" | "failed" | "skipped" | "stale" | "heldBack";

export const OUTCOMES: readonly Outcome[] = ["succeeded", "failed", "skipped", "stale", "heldBack"];

/** Why a step was skipped, at the root: a dependency failed, was stale or held back, or the run stopped. */
export type SkipCause = "failed" | "stale" | "heldBack" | "stopped" | "cycle";

export interface StepError {
  /** Names method, path, status and the service's detail; never a secret. */
  message: string;
  status?: number;
  traceId?: string;
}

export interface StepOutcome {
  stepId: string;
  kind: StepKind;
  target: string;
  outcome: Outcome;
  /** Write attempts sent for this step (retries included); 0 when it never ran. */
  attempts: number;
  durationMs: number;
  error?: StepError;
  /** Why it was skipped, stale or held back, for a person. */
  reason?: string;
  /** Only for `skipped`: the root cause, so exit codes can tell a failure from a safety guard. */
  cause?: SkipCause;
  /**
   * The create met "exists" and the read-back matched, or the delete met 404; for a bulk
   * membership step: `readBack` (its answer was lost, the group's members showed the change) or
   * `perPerson` (no bulk endpoint: its people were moved one mapping PUT each); for a permission
   * step: `readBack` (its answer was lost, the grants read back showed the change).
   */
  recovered?: "exists" | "notFound" | "readBack" | "perPerson";
}

export type OutcomeCounts = Record<Outcome, number>;

export interface ApplyResult {
  /** In plan order. */
  outcomes: StepOutcome[];
  counts: OutcomeCounts;
  stoppedBy?: "fatal" | "circuitBreaker" | "interrupted";
  stopReason?: string;
  durationMs: number;
  /** HTTP requests sent during the run (every attempt). */
  requests: number;
  retries: number;
}

export interface Progress {
  total: number;
  /** Steps with an outcome. */
  done: number;
  running: number;
  counts: OutcomeCounts;
  /** Retried requests so far in this run. */
  retries?: number;
  /** Steps never started because the run stopped (not counted in `done`). */
  notStarted?: number;
}

/** Initial passwords for new built-in users (DESIGN section 6). */
export interface PasswordProvider {
  readonly source: "generate" | "column" | "file" | "none";
  /**
   * The password to send with the create of `email`, or `undefined` to send none. For `generate`
   * the password is durable in the credentials file before this resolves.
   */
  passwordFor(email: string): Promise<string | undefined>;
  close(): Promise<void>;
  /** `generate` only: where the passwords are written, said to the person after the run. */
  readonly credentialsFile?: string;
  /** `generate` with output.credentialsDir: the folder of one file per person. */
  readonly credentialsDir?: string;
  /** `generate` only: passwords written to the file in this run (a recent one reused for a retry is not counted again). */
  generated?(): number;
}

/** One JSON line per finished step, appended as the run goes. */
export interface Journal {
  /** Queues the line; writing and flushing happen in the background, in order. */
  record(outcome: StepOutcome): void;
  /** Resolves when every queued line is written and flushed; rejects with the first write error. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function emptyCounts(): OutcomeCounts {
  return { succeeded: 0, failed: 0, skipped: 0, stale: 0, heldBack: 0 };
}
