/**
 * The one place that decides whether a failed request may be sent again (STYLE.md rule 4).
 * Pure: no clock, no I/O. The transport calls it from p-retry's `shouldRetry`.
 */
import { AnswerError, HttpError, NetworkError } from "../errors.js";

export interface RetryQuestion {
  /** The failure of the last attempt. */
  error: unknown;
  method: string;
  /**
   * True when a repeated request cannot do harm because its outcome can be verified: a create
   * whose duplicate answers 409 (or 400 "user already exists") and is then read back.
   */
  verifiable: boolean;
  /**
   * True for a POST the API makes idempotent: the bulk membership actions (adding a member twice,
   * or removing one who is not a member, changes nothing) and managePermissions (it sets each
   * assignee's grant to absolute values), so a repeat after a lost answer is safe.
   */
  idempotent?: boolean;
  /** Attempts made so far (1 after the first failure). */
  attempt: number;
  /** Retries allowed after the first attempt. */
  retries: number;
}

const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

// What a status or a connection error says about trying again is the error's own (errors.ts).
export { isRetryableStatus, RETRYABLE_NETWORK_CODES } from "../errors.js";

/** The rules, in order; the first that answers wins. Unknown errors are never retried. */
export function isRetryable(q: RetryQuestion): boolean {
  if (q.attempt > q.retries) return false;
  if (!IDEMPOTENT.has(q.method.toUpperCase()) && !q.idempotent && !q.verifiable) return false;
  if (q.error instanceof HttpError || q.error instanceof NetworkError || q.error instanceof AnswerError)
    return q.error.retryable;
  return false;
}

// `Retry-After` is read where every other rate-limit header is.
export { parseRetryAfter } from "./rate-limit-headers.js";

export interface BackoffOptions {
  /** 1 for the delay before the first retry. */
  retry: number;
  baseMs?: number;
  maxMs?: number;
  /** 0..1; "full jitter" keeps half the delay fixed and randomises the other half. */
  random: () => number;
}

/** Exponential backoff with jitter: base * 2^(retry-1), capped, then between 50% and 100% of it. */
export function backoffDelay(o: BackoffOptions): number {
  const base = o.baseMs ?? 200;
  const max = o.maxMs ?? 10_000;
  const exp = Math.min(max, base * 2 ** Math.max(0, o.retry - 1));
  return Math.round(exp / 2 + (exp / 2) * o.random());
}
