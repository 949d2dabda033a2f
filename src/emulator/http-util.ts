/** Small HTTP helpers of the emulator: answers as values, problem details, media types. */
import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";

export const JSON_API = "application/vnd.gooddata.api+json";
export const JSON_TYPE = "application/json";
export const PROBLEM_JSON = "application/problem+json";
/** Bodies larger than this answer 413: the emulator never needs them and must not buffer them. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

export interface Reply {
  status: number;
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

const TITLES: Record<number, string> = {
  400: "Bad Request",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** Thrown by handlers; the server turns it into a problem-details answer. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
  }
}

export function traceId(): string {
  return randomBytes(16).toString("hex");
}

/** Like the service, an error answer names its trace in X-GDC-TRACE-ID (and in a problem's body). */
export function problemReply(status: number, detail: string): Reply {
  const trace = traceId();
  return {
    status,
    contentType: PROBLEM_JSON,
    headers: { "X-GDC-TRACE-ID": trace },
    body: { title: TITLES[status] ?? "Error", status, detail, traceId: trace },
  };
}

/** 401 with an empty body; an expired token says why in WWW-Authenticate (RFC 6750). */
export function unauthorized(expired: boolean): Reply {
  const challenge = expired
    ? 'Bearer error="invalid_token", error_description="The access token expired"'
    : "Bearer";
  return { status: 401, headers: { "WWW-Authenticate": challenge, "X-GDC-TRACE-ID": traceId() } };
}

/** The media type without parameters, lower-cased (`application/json; charset=utf-8` -> `application/json`). */
export function mediaType(header: string | undefined): string {
  return (header ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on("end", () => {
      if (size > MAX_BODY_BYTES)
        reject(new ProblemError(413, `request body exceeds ${MAX_BODY_BYTES} bytes`));
      else resolve(Buffer.concat(chunks));
    });
    req.on("error", reject);
  });
}

/** A request body parsed once: for the handler and, redacted, for the request log. */
export type ParsedBody =
  { ok: true; value: unknown } | { ok: false; error: string } | { ok: false; empty: true };

export function parseBody(raw: Buffer): ParsedBody {
  if (raw.length === 0) return { ok: false, empty: true };
  try {
    return { ok: true, value: JSON.parse(raw.toString("utf8")) as unknown };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

/** The JSON body after checking its media type (415) and syntax (400). */
export function jsonBody(body: ParsedBody, contentType: string | undefined, expected: string): unknown {
  const type = mediaType(contentType);
  if (type !== expected) {
    throw new ProblemError(415, `Content-Type must be ${expected}, got ${type || "none"}`);
  }
  if (body.ok) return body.value;
  if ("empty" in body) throw new ProblemError(400, "request body is empty; a JSON document is required");
  throw new ProblemError(400, `request body is not valid JSON: ${body.error}`);
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A copy of a parsed body with every `password` member replaced by "***", for the request log. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] = k.toLowerCase() === "password" && v != null ? "***" : redact(v);
  return out;
}
