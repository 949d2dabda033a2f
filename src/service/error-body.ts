/**
 * Turns a failed answer into a typed `HttpError`, whatever its body looks like: problem details
 * (`{title, status, detail, traceId}`), a throttling body (`{error, message}`), an empty body
 * (a bare 401) or plain text / HTML from a proxy. Secrets are scrubbed from anything echoed back.
 */
import { HttpError } from "../errors.js";
import { redactSecrets } from "../logging.js";
import { parseRetryAfter } from "./retry-policy.js";

export interface FailedAnswer {
  method: string;
  path: string;
  status: number;
  /** Raw body text, possibly empty. */
  body: string;
  headers: Record<string, string | string[] | undefined>;
  /** For `Retry-After` dates. */
  now: number;
  maxRetryAfterMs: number;
  /** Strings that must never appear in the error (the token, passwords sent). */
  secrets: string[];
  /** True when a duplicate here means "exists" (the request was a create). */
  isCreate: boolean;
}

const MAX_DETAIL = 300;

function header(headers: FailedAnswer["headers"], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
}

interface ParsedBody {
  detail?: string | undefined;
  title?: string | undefined;
  traceId?: string | undefined;
}

export function parseErrorBody(body: string): ParsedBody {
  const text = body.trim();
  if (text === "") return {};
  try {
    const json: unknown = JSON.parse(text);
    if (json && typeof json === "object" && !Array.isArray(json)) {
      const o = json as Record<string, unknown>;
      return {
        detail: str(o["detail"]) ?? str(o["message"]),
        title: str(o["title"]) ?? str(o["error"]),
        traceId: str(o["traceId"]) ?? str(o["trace_id"]),
      };
    }
  } catch {
    // not JSON: fall through and keep the start of the text
  }
  const oneLine = text.replace(/\s+/g, " ");
  return { detail: oneLine.length > MAX_DETAIL ? `${oneLine.slice(0, MAX_DETAIL)}…` : oneLine };
}

const USER_EXISTS = /already exists/i;

/** RFC 6750: `Bearer error="invalid_token", error_description="The access token expired"`. */
function bearerError(challenge: string | undefined): string | undefined {
  const description = /error_description="([^"]*)"/i.exec(challenge ?? "")?.[1];
  return str(description?.slice(0, MAX_DETAIL));
}

export function toHttpError(a: FailedAnswer): HttpError {
  const parsed = parseErrorBody(a.body);
  const scrub = (s: string | undefined): string | undefined =>
    s === undefined ? undefined : redactSecrets(s, a.secrets);
  // The service sends its trace id in X-GDC-TRACE-ID, also when the body is empty (a bare 401).
  const traceId =
    parsed.traceId ??
    header(a.headers, "x-gdc-trace-id") ??
    header(a.headers, "x-trace-id") ??
    header(a.headers, "x-request-id");
  const exists =
    a.isCreate &&
    (a.status === 409 ||
      (a.status === 400 && USER_EXISTS.test(`${parsed.detail ?? ""} ${parsed.title ?? ""}`)));
  return new HttpError({
    method: a.method,
    path: redactSecrets(a.path, a.secrets),
    status: a.status,
    detail: scrub(parsed.detail ?? bearerError(header(a.headers, "www-authenticate"))),
    title: scrub(parsed.title),
    traceId: scrub(traceId),
    retryAfterMs: parseRetryAfter(header(a.headers, "retry-after"), a.now, a.maxRetryAfterMs),
    exists,
  });
}
