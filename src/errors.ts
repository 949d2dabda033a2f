/**
 * The error family of usersync. Every error a person may see carries a stable `code` and
 * enough context to act on (file/row/field, method/path/status). None of them may carry a
 * secret: constructors take already-redacted values only.
 *
 * Every constructor takes one options object (`{ message, ... }`, or the fields an HTTP or
 * network failure builds its message from), so adding a field never reorders arguments.
 *
 * The top-level CLI handler maps them to exit codes (see `exitCodeFor`).
 */

export type ErrorCode =
  | "CONFIG_INVALID"
  | "INPUT_INVALID"
  | "SOURCE_UNAVAILABLE"
  | "HTTP_ERROR"
  | "NETWORK_ERROR"
  | "BAD_ANSWER"
  | "SAFETY_REFUSAL"
  | "INTERRUPTED"
  | "INTERNAL";

export abstract class UsersyncError extends Error {
  abstract readonly code: ErrorCode;
}

/** One problem found in a desired-state or config file. `line` is 1-based. */
export interface Problem {
  file: string;
  line?: number;
  /** CSV column name or YAML path such as `users[3].email`. */
  field?: string;
  /** Short stable name of the rule broken, e.g. `duplicate-email`. */
  rule: string;
  message: string;
  severity?: "error" | "warning";
}

export function formatProblem(p: Problem): string {
  const where = [p.file, p.line !== undefined ? String(p.line) : undefined].filter(Boolean).join(":");
  const field = p.field ? ` ${p.field}:` : "";
  return `${where}:${field} ${p.message} [${p.rule}]`;
}

/** What a person reads, for the errors whose message is written where they are thrown. */
export interface MessageInit {
  message: string;
}

export interface ProblemsInit extends MessageInit {
  /** Every problem found, in file and line order. */
  problems?: Problem[];
}

/** An error that lists every problem found, each with its file, line and field. */
abstract class ProblemsError extends UsersyncError {
  readonly problems: Problem[];
  constructor(init: ProblemsInit) {
    super(init.message);
    this.name = new.target.name;
    this.problems = init.problems ?? [];
  }
}

export class ConfigError extends ProblemsError {
  readonly code = "CONFIG_INVALID" as const;
}

export class InputError extends ProblemsError {
  readonly code = "INPUT_INVALID" as const;
}

/** A directory source (`source.type: ldap`, `entra`, `okta`) could not be read: its settings, not a file, need fixing. */
export class DirectoryError extends InputError {
  /** The source whose settings to fix (`ldap`, `entra`, `okta`): its docs are docs/<source>.md. Set where it is read. */
  source?: string;
}

/**
 * The source of the desired state could not be read now: the directory is down, unreachable or
 * timed out, or a desired-state or groups file is missing or unreadable (a share not mounted).
 * Exit 5: nothing was sent, and the same run may succeed later (a scheduler retries it).
 */
export class SourceUnavailableError extends ProblemsError {
  readonly code = "SOURCE_UNAVAILABLE" as const;
}

export interface HttpErrorInit {
  method: string;
  path: string;
  status: number;
  detail?: string | undefined;
  title?: string | undefined;
  traceId?: string | undefined;
  /** Milliseconds from the answer the server asked us to wait (Retry-After, capped), if any. */
  retryAfterMs?: number | undefined;
  /** True for 400 "user already exists" / 409 on a create. */
  exists?: boolean | undefined;
  /** Replaces the message built from the fields (it must still name the request and status). */
  message?: string | undefined;
}

export class HttpError extends UsersyncError {
  readonly code = "HTTP_ERROR" as const;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly detail: string | undefined;
  readonly traceId: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly exists: boolean;
  constructor(init: HttpErrorInit) {
    const detail = init.detail ?? init.title;
    super(
      init.message ??
        `${init.method} ${init.path} answered ${init.status}${detail ? `: ${detail}` : ""}${init.traceId ? ` (traceId ${init.traceId})` : ""}`,
    );
    this.name = "HttpError";
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    this.detail = detail;
    this.traceId = init.traceId;
    this.retryAfterMs = init.retryAfterMs;
    this.exists = init.exists ?? false;
  }
  /** 401 and 403 stop the whole run. */
  get fatal(): boolean {
    return this.status === 401 || this.status === 403;
  }
  /** The status says the same request may succeed later (the retry policy adds method and count). */
  get retryable(): boolean {
    return isRetryableStatus(this.status);
  }
}

/** 408, 429 and every 5xx but 501 (not implemented, which no retry fixes). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501 && status <= 599);
}

/** Error codes of undici / node that mean "the connection failed or timed out". */
export const RETRYABLE_NETWORK_CODES: ReadonlySet<string> = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CLOSED",
]);

/** OpenSSL's verdicts for a certificate chain that no trusted CA vouches for. */
const UNTRUSTED_CERTIFICATE: ReadonlySet<string> = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_UNTRUSTED",
]);

/** The service's certificate is not trusted: the advice is target.caFile, not reachability. */
export const isUntrustedCertificate = (code: string): boolean => UNTRUSTED_CERTIFICATE.has(code);

export interface NetworkErrorInit {
  method: string;
  path: string;
  /** e.g. ECONNRESET, UND_ERR_HEADERS_TIMEOUT */
  causeCode: string;
  /** What the connection said, already redacted. */
  message: string;
}

export class NetworkError extends UsersyncError {
  readonly code = "NETWORK_ERROR" as const;
  readonly method: string;
  readonly path: string;
  readonly causeCode: string;
  constructor(init: NetworkErrorInit) {
    super(`${init.method} ${init.path} failed: ${init.message} (${init.causeCode})`);
    this.name = "NetworkError";
    this.method = init.method;
    this.path = init.path;
    this.causeCode = init.causeCode;
  }
  /** Sending again may help (a reset connection), or not (an untrusted certificate, an unknown host). */
  get retryable(): boolean {
    return RETRYABLE_NETWORK_CODES.has(this.causeCode);
  }
}

export interface AnswerErrorInit {
  method: string;
  /** The request (path and query), or the listing, already redacted. */
  path: string;
  /** The status the answer came with, when one answer is at fault (not a listing that does not add up). */
  status?: number | undefined;
  /** What was wrong, e.g. `data: expected array, received null`. */
  problem: string;
  /** The start of the body, on one line, already redacted. */
  sample?: string | undefined;
}

/**
 * A successful status with an answer that cannot be believed: not JSON, the wrong shape, too
 * large, or a listing whose pages do not add up. Retried like a 5xx (a gateway's page is often
 * transient); nothing is planned on it.
 */
export class AnswerError extends UsersyncError {
  readonly code = "BAD_ANSWER" as const;
  readonly method: string;
  readonly path: string;
  readonly status: number | undefined;
  readonly problem: string;
  readonly sample: string | undefined;
  constructor(init: AnswerErrorInit) {
    const answered = init.status !== undefined ? ` answered ${init.status}, but` : ":";
    const sample = init.sample !== undefined ? `; the body began: ${JSON.stringify(init.sample)}` : "";
    super(`${init.method} ${init.path}${answered} ${init.problem}${sample}`);
    this.name = "AnswerError";
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    this.problem = init.problem;
    this.sample = init.sample;
  }
  /** Like a 5xx: the same request may be answered properly later. */
  get retryable(): boolean {
    return true;
  }
}

export class SafetyRefusal extends UsersyncError {
  readonly code = "SAFETY_REFUSAL" as const;
  constructor(init: MessageInit) {
    super(init.message);
    this.name = "SafetyRefusal";
  }
}

/** Ctrl-C or SIGTERM ended the run (exit 130); the message says what was or was not changed. */
export class Interrupted extends UsersyncError {
  readonly code = "INTERRUPTED" as const;
  constructor(init: MessageInit) {
    super(init.message);
    this.name = "Interrupted";
  }
}

export class InternalError extends UsersyncError {
  readonly code = "INTERNAL" as const;
  constructor(init: MessageInit) {
    super(init.message);
    this.name = "InternalError";
  }
}

/** Exit codes, stable and documented in the README. */
export const ExitCode = {
  ok: 0,
  failed: 1,
  changes: 2,
  refused: 3,
  invalid: 4,
  unavailable: 5,
  /** Ctrl-C or SIGTERM, whatever the phase (128 + SIGINT, as shells report it). */
  interrupted: 130,
} as const;

export function exitCodeFor(err: unknown): number {
  if (err instanceof ConfigError || err instanceof InputError) return ExitCode.invalid;
  if (err instanceof SourceUnavailableError) return ExitCode.unavailable;
  if (err instanceof SafetyRefusal) return ExitCode.refused;
  if (err instanceof Interrupted) return ExitCode.interrupted;
  return ExitCode.failed;
}
