/**
 * The HTTP core of the client: the only module of `src/` that imports undici. One keep-alive
 * pool per client; every attempt passes the concurrency limit (p-limit) and the rate limiter,
 * and p-retry repeats what `isRetryable` allows, waiting through the injected `sleep`.
 */
import { rootCertificates } from "node:tls";
import { Pool } from "undici";
import pLimit from "p-limit";
import pRetry from "p-retry";
import type { Logger } from "pino";
import { HttpError, isUntrustedCertificate, NetworkError } from "../errors.js";
import { redactSecrets } from "../logging.js";
import type { CallOptions, ClientStats } from "./types.js";
import { toHttpError } from "./error-body.js";
import { readRateWindow, throttleWaitMs, type Headers } from "./rate-limit-headers.js";
import { RateLimiter } from "./rate-limiter.js";
import { backoffDelay, isRetryable } from "./retry-policy.js";
import { Slowdown } from "./slowdown.js";

export interface TransportOptions {
  baseUrl: string;
  token: string;
  concurrency: number;
  requestsPerSecond: number;
  retries: number;
  timeouts: { connectMs: number; headersMs: number; bodyMs: number };
  /** PEM text of extra trusted CAs. TLS verification is never turned off. */
  ca?: string;
  logger: Logger;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  now: () => number;
  maxRetryAfterMs: number;
}

export interface RequestSpec {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path below the base URL, already encoded, with its query string. */
  path: string;
  body?: unknown;
  /** Content type of the body and the Accept type. */
  mediaType: string;
  /** A create whose duplicate answers 409 / 400 "already exists": safe to retry, outcome verifiable. */
  isCreate?: boolean;
  /** A POST whose repetition changes nothing (bulk membership): retried like a PUT. */
  idempotent?: boolean;
  /** Statuses returned to the caller instead of thrown (e.g. 404 on GET of one object). */
  accept?: number[];
  /** Values in the body that must never appear in an error (passwords). */
  secrets?: string[];
  call?: CallOptions | undefined;
}

export interface Answer {
  status: number;
  json: unknown;
}
type RawAnswer = { status: number; headers: Headers; text: string };

const UNTRUSTED_HINT =
  "; if the service's certificate is issued by a private CA, point target.caFile at that CA's certificate (PEM)";

export class Transport {
  private readonly pool: Pool;
  private readonly prefix: string;
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly limiter: RateLimiter;
  private readonly counts: ClientStats = { requests: 0, retries: 0, throttled: 0 };
  private readonly slowdown: Slowdown;
  private inFlight = 0;
  /** Header values already named in a debug line (one line each, not one per answer). */
  private readonly ignoredHeaders = new Set<string>();

  constructor(private readonly o: TransportOptions) {
    const url = new URL(o.baseUrl);
    this.prefix = url.pathname.replace(/\/+$/, "");
    this.pool = new Pool(url.origin, {
      connections: o.concurrency,
      // Node's `ca` replaces the default trust store; a custom CA is added to it, not swapped in.
      connect: {
        timeout: o.timeouts.connectMs,
        ...(o.ca !== undefined ? { ca: [...rootCertificates, o.ca] } : {}),
      },
      headersTimeout: o.timeouts.headersMs,
      bodyTimeout: o.timeouts.bodyMs,
      keepAliveTimeout: 30_000,
    });
    this.limit = pLimit(o.concurrency);
    this.limiter = new RateLimiter({ requestsPerSecond: o.requestsPerSecond, now: o.now, sleep: o.sleep });
    this.slowdown = new Slowdown({ limiter: this.limiter, now: o.now, logger: o.logger });
  }

  stats(): ClientStats {
    return { ...this.counts };
  }

  async close(): Promise<void> {
    // Said once, at the end, with the lowest rate and the one the run ended at (not once per 429).
    this.slowdown.report(this.counts.throttled);
    await this.pool.close();
  }

  async request(spec: RequestSpec): Promise<Answer> {
    const secrets = [this.o.token, ...(spec.secrets ?? [])];
    const retryable = (error: unknown, attempt: number): boolean =>
      isRetryable({
        error,
        method: spec.method,
        verifiable: spec.isCreate === true,
        idempotent: spec.idempotent === true,
        attempt,
        retries: this.o.retries,
      });
    let attempt = 0;
    return pRetry(
      async () => {
        attempt += 1;
        if (attempt > 1) this.counts.retries += 1;
        spec.call?.onAttempt?.(attempt);
        return this.limit(() => this.attempt(spec, secrets, attempt));
      },
      {
        retries: this.o.retries,
        // Waiting is done in onFailedAttempt through the injected sleep, so tests capture delays.
        minTimeout: 0,
        maxTimeout: 0,
        randomize: false,
        shouldRetry: ({ error, attemptNumber }) => retryable(error, attemptNumber),
        onFailedAttempt: async ({ error, attemptNumber }) => {
          if (!retryable(error, attemptNumber)) return;
          const serverWait = error instanceof HttpError ? error.retryAfterMs : undefined;
          const waitMs = serverWait ?? backoffDelay({ retry: attemptNumber, random: this.o.random });
          this.o.logger.warn(
            { method: spec.method, path: spec.path, attempt: attemptNumber, waitMs, err: error.message },
            "request failed, retrying",
          );
          if (serverWait !== undefined) {
            // A Retry-After (429, 503) holds back every request of the client, not only this one:
            // the rate limiter makes each next attempt wait until then.
            this.limiter.pauseUntil(this.o.now() + serverWait);
          } else {
            await this.o.sleep(waitMs);
          }
        },
      },
    );
  }

  /** One request and its whole answer, or a NetworkError (no answer in time, a connection lost). */
  private async exchange(spec: RequestSpec, secrets: string[]): Promise<RawAnswer> {
    this.inFlight += 1;
    // undici's own headers timeout runs on a coarse (~1 s) timer; this one is exact.
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, this.o.timeouts.headersMs);
    try {
      const res = await this.pool.request({
        signal: abort.signal,
        method: spec.method,
        path: this.prefix + spec.path,
        headers: {
          authorization: `Bearer ${this.o.token}`,
          accept: `${spec.mediaType}, application/problem+json, application/json`,
          ...(spec.body !== undefined ? { "content-type": spec.mediaType } : {}),
        },
        ...(spec.body !== undefined ? { body: JSON.stringify(spec.body) } : {}),
      });
      clearTimeout(timer);
      return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
    } catch (err) {
      const e = err as { code?: string; message?: string };
      const code = timedOut ? "UND_ERR_HEADERS_TIMEOUT" : (e.code ?? "UNKNOWN");
      const message = timedOut
        ? `no answer within ${this.o.timeouts.headersMs} ms`
        : (e.message ?? String(err)) + (isUntrustedCertificate(code) ? UNTRUSTED_HINT : "");
      throw new NetworkError({
        method: spec.method,
        path: redactSecrets(spec.path, secrets),
        causeCode: code,
        message: redactSecrets(message, secrets),
      });
    } finally {
      clearTimeout(timer);
      this.inFlight -= 1;
    }
  }

  private async attempt(spec: RequestSpec, secrets: string[], attempt: number): Promise<Answer> {
    await this.limiter.acquire();
    const started = this.o.now();
    this.counts.requests += 1;
    const { status, headers, text } = await this.exchange(spec, secrets);
    this.observeRateLimit(headers);
    this.slowdown.answered(status, started);
    this.o.logger.debug(
      { method: spec.method, path: spec.path, status, attempt, ms: this.o.now() - started },
      "http",
    );
    if (status === 429) this.counts.throttled += 1;
    if ((status >= 200 && status < 300) || spec.accept?.includes(status)) {
      return { status, json: parseJson(text) };
    }
    const error = toHttpError({
      method: spec.method,
      path: spec.path,
      status,
      body: text,
      headers,
      now: Date.now(),
      maxRetryAfterMs: this.o.maxRetryAfterMs,
      secrets,
      isCreate: spec.isCreate === true,
    });
    if (status === 429 || status === 503) this.holdBack(headers);
    throw error;
  }

  private readOptions(): { now: number; capMs: number; onIgnored: (h: string, v: string) => void } {
    return {
      now: this.o.now(),
      capMs: this.o.maxRetryAfterMs,
      onIgnored: (header, value) => {
        const key = `${header}: ${value}`;
        if (this.ignoredHeaders.has(key)) return;
        this.ignoredHeaders.add(key);
        this.o.logger.debug(
          { header, value },
          "rate-limit header ignored (missing, negative, unreadable or absurd)",
        );
      },
    };
  }

  private observeRateLimit(headers: Headers): void {
    const w = readRateWindow(headers, this.readOptions());
    if (w) this.limiter.observe(w, this.inFlight);
  }

  /**
   * A 429 or 503 holds back every request until the server's wait (Retry-After, else the
   * window's reset). Whether 429s slow the whole run down is the Slowdown's to decide.
   */
  private holdBack(headers: Headers): void {
    const wait = throttleWaitMs(headers, this.readOptions());
    if (wait !== undefined) this.limiter.pauseUntil(this.o.now() + wait);
  }
}

function parseJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
