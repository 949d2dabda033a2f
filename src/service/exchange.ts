/**
 * One HTTP exchange: the request and its whole answer, or why there is none. Two deadlines, both
 * exact: the headers within `headersMs`, and the whole answer, from sending to the body's last
 * byte, within `responseMs` (undici's own `bodyTimeout` measures only the gap between chunks, so a
 * body trickling in a byte at a time would never end). A body over `maxResponseBytes` is not read
 * further: an AnswerError, retried like any broken answer.
 */
import type { Dispatcher } from "undici";
import { AnswerError, isUntrustedCertificate, NetworkError } from "../errors.js";
import { redactSecrets } from "../logging.js";
import { headerValue, type Headers } from "./rate-limit-headers.js";

export interface ExchangeOptions {
  pool: Dispatcher;
  /** The base URL's path, put before every request's. */
  prefix: string;
  token: string;
  timeouts: { headersMs: number; responseMs: number };
  maxResponseBytes: number;
}

export interface ExchangeRequest {
  method: string;
  /** Below the base URL, with its query string. */
  path: string;
  /** Content type of the body and the Accept type. */
  mediaType: string;
  body?: unknown;
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
}

const UNTRUSTED_HINT =
  "; if the service's certificate is issued by a private CA, point target.caFile at that CA's certificate (PEM)";

type Late = "headers" | "response" | undefined;

/** The answer; a NetworkError when none came in time or the connection failed; an AnswerError when too large. */
export async function exchange(
  o: ExchangeOptions,
  spec: ExchangeRequest,
  secrets: string[],
): Promise<RawAnswer> {
  const abort = new AbortController();
  let late: Late;
  const after = (ms: number, what: Late) =>
    setTimeout(() => {
      late ??= what;
      abort.abort();
    }, ms);
  const headersTimer = after(o.timeouts.headersMs, "headers");
  const responseTimer = after(o.timeouts.responseMs, "response");
  const path = redactSecrets(spec.path, secrets);
  try {
    const res = await o.pool.request({
      signal: abort.signal,
      method: spec.method as Dispatcher.HttpMethod,
      path: o.prefix + spec.path,
      headers: {
        authorization: `Bearer ${o.token}`,
        accept: `${spec.mediaType}, application/problem+json, application/json`,
        ...(spec.body !== undefined ? { "content-type": spec.mediaType } : {}),
      },
      ...(spec.body !== undefined ? { body: JSON.stringify(spec.body) } : {}),
    });
    clearTimeout(headersTimer);
    const text = await readBody(res, { max: o.maxResponseBytes, method: spec.method, path });
    return { status: res.statusCode, headers: res.headers, text };
  } catch (err) {
    if (err instanceof AnswerError) throw err;
    throw networkError(o, { method: spec.method, path, secrets, err, late });
  } finally {
    clearTimeout(headersTimer);
    clearTimeout(responseTimer);
  }
}

function networkError(
  o: ExchangeOptions,
  f: { method: string; path: string; secrets: string[]; err: unknown; late: Late },
): NetworkError {
  const e = f.err as { code?: string; message?: string };
  let code = e.code ?? "UNKNOWN";
  let message = (e.message ?? String(f.err)) + (isUntrustedCertificate(code) ? UNTRUSTED_HINT : "");
  if (f.late === "headers") {
    code = "UND_ERR_HEADERS_TIMEOUT";
    message = `no answer within ${o.timeouts.headersMs} ms`;
  } else if (f.late === "response") {
    code = "UND_ERR_BODY_TIMEOUT";
    message = `the whole answer did not arrive within ${o.timeouts.responseMs} ms (target.timeouts.responseMs)`;
  }
  return new NetworkError({
    method: f.method,
    path: f.path,
    causeCode: code,
    message: redactSecrets(message, f.secrets),
  });
}

/** The body as text; more than `max` bytes is an AnswerError, and nothing past it is read. */
async function readBody(
  res: Dispatcher.ResponseData,
  o: { max: number; method: string; path: string },
): Promise<string> {
  const tooLarge = (problem: string): AnswerError => {
    // Destroying the stream makes it emit an "aborted" error: it is this one, already handled.
    res.body.on("error", () => {});
    res.body.destroy();
    return new AnswerError({ method: o.method, path: o.path, status: res.statusCode, problem });
  };
  const cap = `target.maxResponseBytes (${o.max} bytes)`;
  const declared = Number(headerValue(res.headers, "content-length") ?? 0);
  if (declared > o.max) throw tooLarge(`the body is ${declared} bytes, more than ${cap}; it was not read`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > o.max) throw tooLarge(`the body is larger than ${cap}; it was not read further`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}
