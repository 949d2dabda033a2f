/**
 * The HTTP core of the client: with `exchange.ts` (one request and its whole answer), the only
 * module of `src/` that imports undici. One keep-alive pool per client; every attempt passes the
 * concurrency limit (p-limit) and the rate limiter, a successful answer is checked against the
 * request's schema (answers.ts), and p-retry repeats what `isRetryable` allows, waiting through
 * the injected `sleep`.
 */
import { rootCertificates } from "node:tls";
import { Pool } from "undici";
import pLimit from "p-limit";
import pRetry from "p-retry";
import type { Logger } from "pino";
import type { z } from "zod";
import { HttpError } from "../errors.js";
import { redactSecrets } from "../logging.js";
import type { CallOptions, ClientStats } from "./types.js";
import { checkAnswer } from "./answers.js";
import { toHttpError } from "./error-body.js";
import { exchange, type ExchangeOptions } from "./exchange.js";
import { headerValue, readRateWindow, throttleWaitMs, type Headers } from "./rate-limit-headers.js";
import { RateLimiter } from "./rate-limiter.js";
import { backoffDelay, isRetryable } from "./retry-policy.js";
import { Slowdown } from "./slowdown.js";

export interface TransportOptions {
  baseUrl: string;
  token: string;
  concurrency: number;
  requestsPerSecond: number;
  retries: number;
  /** `responseMs` bounds the whole answer, from sending to its last byte; `bodyMs` only the gap between chunks. */
  timeouts: { connectMs: number; headersMs: number; bodyMs: number; responseMs: number };
  /** A body larger than this is a broken answer (read no further). */
  maxResponseBytes: number;
  /** PEM text of extra trusted CAs. TLS verification is never turned off. */
  ca?: string;
  logger: Logger;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  now: () => number;
  maxRetryAfterMs: number;
}

export interface RequestSpec<T = unknown> {
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
  /**
   * What a 2xx answer must be (answers.ts): checked for content type, JSON and shape before it is
   * returned; a broken one is an AnswerError, retried like a 5xx. Without it the body is read
   * leniently (the answers to writes the client does not read).
   */
  answer?: z.ZodType<T>;
}

/** `json` is the checked answer for a 2xx with `spec.answer`; for an accepted other status, whatever parsed. */
export interface Answer<T = unknown> {
  status: number;
  json: T;
}

export class Transport {
  private readonly pool: Pool;
  private readonly prefix: string;
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly limiter: RateLimiter;
  private readonly counts: ClientStats = { requests: 0, retries: 0, throttled: 0 };
  private readonly slowdown: Slowdown;
  private readonly exchangeOptions: ExchangeOptions;
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
    this.exchangeOptions = {
      pool: this.pool,
      prefix: this.prefix,
      token: o.token,
      timeouts: o.timeouts,
      maxResponseBytes: o.maxResponseBytes,
    };
  }

  stats(): ClientStats {
    return { ...this.counts };
  }

  async close(): Promise<void> {
    // Said once, at the end, with the lowest rate and the one the run ended at (not once per 429).
    this.slowdown.report(this.counts.throttled);
    await this.pool.close();
  }

  async request<T = unknown>(spec: RequestSpec<T>): Promise<Answer<T>> {
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
        return this.limit(() => this.attempt<T>(spec, secrets, attempt));
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

  /**
   * Before a listing is read again because its pages did not add up: says so, and waits as before
   * a retry (backoff with jitter, through the injected sleep).
   */
  async reread(o: { path: string; read: number; problem: string }): Promise<void> {
    const waitMs = backoffDelay({ retry: o.read, random: this.o.random });
    this.o.logger.warn(
      { path: o.path, read: o.read, waitMs, problem: o.problem },
      "listing did not add up, reading it again",
    );
    await this.o.sleep(waitMs);
  }

  private async attempt<T>(spec: RequestSpec<T>, secrets: string[], attempt: number): Promise<Answer<T>> {
    await this.limiter.acquire();
    const started = this.o.now();
    this.counts.requests += 1;
    this.inFlight += 1;
    const { status, headers, text } = await exchange(this.exchangeOptions, spec, secrets).finally(() => {
      this.inFlight -= 1;
    });
    this.observeRateLimit(headers);
    this.slowdown.answered(status, started);
    this.o.logger.debug(
      { method: spec.method, path: spec.path, status, attempt, ms: this.o.now() - started },
      "http",
    );
    if (status === 429) this.counts.throttled += 1;
    const ok = status >= 200 && status < 300;
    if (ok && spec.answer) {
      const path = redactSecrets(spec.path, secrets);
      const contentType = headerValue(headers, "content-type");
      const answer = { method: spec.method, path, status, contentType, text, secrets };
      return { status, json: checkAnswer(answer, spec.answer) };
    }
    if (ok || spec.accept?.includes(status)) return { status, json: parseJson(text) as T };
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
