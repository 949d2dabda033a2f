/**
 * The HTTP side of a directory read (Microsoft Graph, Okta, Google): one per directory per run,
 * so its throttling is honoured run-wide. GETs only; every answer checked before it is believed.
 *
 * - Bounded concurrency (p-limit), a deadline for the whole answer, a size cap.
 * - Throttling (429, 503, 504): EVERY caller pauses until the time the server named
 *   (`Retry-After`, else a backoff), and all that waiting counts against one budget
 *   (`maxThrottleWaitMs`); past it the read is not whole: SourceIncompleteError, exit 5.
 * - 500, 502, network failures and broken answers (not JSON, cut short) are retried with backoff
 *   and jitter, `retries` times a request; then SourceUnavailableError, exit 5.
 * - Any other status is a DirectoryHttpError for the reader to turn into a setup error naming the
 *   fix (a wrong tenant, a missing permission: exit 4).
 * - A 401 after the directory accepted this run's token (it expired or was revoked mid-read) gets
 *   one fresh token (`renew`) and one retry of that request; a second 401 is a read not whole
 *   (exit 5). A 401 before any answer was accepted is the credentials' (DirectoryHttpError, exit 4).
 * - A link to another origin is refused: a next link is followed verbatim, but the token is
 *   only ever sent to the directory it was issued for.
 * - `pacer` lets a shared quota (Okta's X-Rate-Limit-*) slow each request; a 429 it waits out is its own;
 *   `isThrottled` names throttling a directory sends under another status (Google's 403 quota).
 */
import { createSecureContext } from "node:tls";
import pLimit from "p-limit";
import type { Logger } from "pino";
import { Agent, type Dispatcher } from "undici";
import { DirectoryError, RETRYABLE_NETWORK_CODES, SourceUnavailableError } from "../../errors.js";
import { DirectoryHttpError, SourceIncompleteError } from "./errors.js";
import { parseRetryAfter } from "../../service/rate-limit-headers.js";
import { backoffDelay } from "../../service/retry-policy.js";
import {
  flatHeaders,
  parseBody,
  readCapped,
  Transient,
  type DirectoryAnswer,
  type Pacer,
} from "./directory-answer.js";
export type { DirectoryAnswer, Pacer } from "./directory-answer.js";
import { redactLink } from "./pages.js";

export interface DirectoryHttpOptions {
  /** The directory's name in messages: `Microsoft Graph`, `Okta`. */
  directory: string;
  /** Requests (and every followed link) must stay on this origin. */
  origin: string;
  /** The Authorization header's value, asked for before each request (a token provider caches). */
  authorize?: () => Promise<string>;
  /** Mints a fresh token for the next `authorize()` after a 401 to `refused` mid-read (once for all). */
  renew?: (refused: string) => Promise<void>;
  headers?: Record<string, string>;
  concurrency?: number;
  /** Per attempt, from sending to the body's last byte. */
  timeoutMs?: number;
  /** Retries of one request after a 500/502, a network failure or a broken answer. */
  retries?: number;
  /** All the waiting throttled answers may ask for in one run, in total. */
  maxThrottleWaitMs?: number;
  maxBodyBytes?: number;
  pacer?: Pacer;
  /** An answer that is throttling although its status is not 429/503/504 (Google's 403 `userRateLimitExceeded`). */
  isThrottled?: (answer: DirectoryAnswer) => boolean;
  logger?: Logger;
  dispatcher?: Dispatcher;
  /** PEM CAs to trust (Node's roots included by the caller): a TLS-inspecting proxy, a stand-in. */
  ca?: readonly string[];
  /** Tests: waits, jitter and the clock the pause is measured on. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
}

const THROTTLED = new Set([429, 503, 504]);
const TRANSIENT = new Set([500, 502]);
const DEFAULTS = {
  concurrency: 4,
  timeoutMs: 60_000,
  retries: 4,
  maxThrottleWaitMs: 300_000,
  maxBodyBytes: 64 << 20,
};

export class DirectoryHttp {
  private readonly o: DirectoryHttpOptions & typeof DEFAULTS;
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly dispatcher: Dispatcher;
  private readonly ownDispatcher: boolean;
  /** Until when every request waits (epoch ms): set by any throttled answer. */
  private pausedUntil = 0;
  /** Throttle waiting spent so far in this run, in ms. */
  throttledMs = 0;
  /** Requests sent and throttled answers, for the evidence and benchmarks. */
  requests = 0;
  throttled = 0;
  /** Fresh tokens asked for after a 401 mid-read. */
  renewals = 0;
  /** The directory answered a request with 2xx: its token was good once in this run. */
  private accepted = false;

  constructor(options: DirectoryHttpOptions) {
    this.o = { ...DEFAULTS, ...options };
    this.limit = pLimit(this.o.concurrency);
    this.ownDispatcher = options.dispatcher === undefined;
    // One TLS context for every connection: building one from ~140 root CAs costs ~100 ms each time.
    const connect = options.ca
      ? { connect: { secureContext: createSecureContext({ ca: [...options.ca] }) } }
      : {};
    this.dispatcher =
      options.dispatcher ?? new Agent({ connections: this.o.concurrency, pipelining: 1, ...connect });
  }

  private now(): number {
    return this.o.now ? this.o.now() : Date.now();
  }

  async close(): Promise<void> {
    if (this.ownDispatcher) await this.dispatcher.close();
  }

  /** The parsed JSON body of a GET; `what` names the read in every refusal. */
  async get<B = unknown>(
    link: string,
    what: string,
    headers?: Record<string, string>,
  ): Promise<DirectoryAnswer<B>> {
    const url = this.checkedUrl(link, what);
    return this.limit(() => this.attempts<B>(url, what, headers ?? {}));
  }

  private checkedUrl(link: string, what: string): URL {
    let url: URL;
    try {
      url = new URL(link, this.o.origin);
    } catch {
      throw new SourceIncompleteError({
        read: what,
        reason: `the link ${JSON.stringify(link.slice(0, 80))} is not a URL`,
      });
    }
    if (url.origin !== new URL(this.o.origin).origin)
      throw new SourceIncompleteError({
        read: what,
        reason: `a link leads to ${url.origin}, not ${this.o.directory} at ${new URL(this.o.origin).origin}: not followed (the token is only sent where it belongs)`,
      });
    return url;
  }

  private async attempts<B>(
    url: URL,
    what: string,
    headers: Record<string, string>,
  ): Promise<DirectoryAnswer<B>> {
    const sleep = this.o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    const random = this.o.random ?? Math.random;
    let failures = 0;
    let throttles = 0;
    let renewed = false;
    for (;;) {
      const wait = this.pausedUntil - this.now();
      if (wait > 0) await sleep(wait);
      await this.o.pacer?.beforeRequest(url);
      let answer: DirectoryAnswer<B>;
      let authorization: string | undefined;
      try {
        // Before the request's own try: a refused token (a setup mistake, exit 4) is not a network failure.
        authorization = this.o.authorize ? await this.o.authorize() : undefined;
        answer = await this.once<B>(url, headers, authorization);
      } catch (err) {
        this.o.pacer?.settled?.(url);
        if (!(err instanceof Transient)) throw err;
        failures += 1;
        if (failures > this.o.retries)
          throw new SourceUnavailableError({
            message: `${what}: ${this.o.directory} did not answer ${redactLink(url.href)} usably after ${failures} tries (${err.message})`,
          });
        await sleep(backoffDelay({ retry: failures, random }));
        continue;
      }
      const paced = this.o.pacer?.observe(answer, url) === true;
      if (THROTTLED.has(answer.status) || this.o.isThrottled?.(answer)) {
        throttles += 1;
        this.throttled += 1;
        const backoffMs = backoffDelay({ retry: throttles, random, baseMs: 1000, maxMs: 60_000 });
        if (!paced) this.throttle(answer, what, backoffMs);
        continue;
      }
      if (TRANSIENT.has(answer.status)) {
        failures += 1;
        if (failures > this.o.retries)
          throw new SourceUnavailableError({
            message: `${what}: ${this.o.directory} answered ${answer.status} to ${redactLink(url.href)} ${failures} times`,
          });
        await sleep(backoffDelay({ retry: failures, random }));
        continue;
      }
      const settled = await this.settle(answer, { authorization, url, what, renewed });
      if (settled !== "renewed") return settled;
      renewed = true;
    }
  }

  /** A 2xx; a 401 mid-read renewed once (see the top); else a DirectoryHttpError for the reader's fix. */
  private async settle<B>(
    answer: DirectoryAnswer<B>,
    o: { authorization: string | undefined; url: URL; what: string; renewed: boolean },
  ): Promise<DirectoryAnswer<B> | "renewed"> {
    if (answer.status >= 200 && answer.status < 300) {
      this.accepted = true;
      return answer;
    }
    const path = redactLink(o.url.href);
    if (answer.status === 401 && this.accepted && o.authorization !== undefined && this.o.renew) {
      if (o.renewed)
        throw new SourceIncompleteError({
          read: o.what,
          reason: `${this.o.directory} refused a fresh token too (401 to ${path}), after accepting this run's token before: the read is not whole; a later run may succeed`,
        });
      this.renewals += 1;
      this.o.logger?.info(
        { directory: this.o.directory, status: 401 },
        `${this.o.directory} refused the token mid-read (expired or revoked): asking for a fresh one, then this request once more`,
      );
      await this.o.renew(o.authorization);
      return "renewed";
    }
    const { status, body } = answer;
    throw new DirectoryHttpError({ directory: this.o.directory, method: "GET", path, status, body });
  }

  /** Every caller waits: the longer of what the server said and the backoff; the run's budget bounds it. */
  private throttle(answer: DirectoryAnswer, what: string, backoffMs: number): void {
    const now = this.now();
    const told = parseRetryAfter(answer.headers["retry-after"], now, this.o.maxThrottleWaitMs);
    const waitMs = told ?? backoffMs;
    const until = now + waitMs;
    if (until > this.pausedUntil) {
      // Only the part of the wait that extends the pause is spent again.
      this.throttledMs += until - Math.max(this.pausedUntil, now);
      this.pausedUntil = until;
    }
    this.o.logger?.warn(
      { directory: this.o.directory, status: answer.status, waitMs, spentMs: this.throttledMs },
      `${this.o.directory} is throttling: every read waits`,
    );
    if (this.throttledMs > this.o.maxThrottleWaitMs)
      throw new SourceIncompleteError({
        read: what,
        reason: `${this.o.directory} kept throttling (${answer.status}): ${Math.round(this.throttledMs / 1000)} s of waiting is past the budget of ${Math.round(this.o.maxThrottleWaitMs / 1000)} s; a later run may succeed`,
      });
  }

  private async once<B>(
    url: URL,
    extra: Record<string, string>,
    authorization: string | undefined,
  ): Promise<DirectoryAnswer<B>> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.o.timeoutMs);
    this.requests += 1;
    try {
      const res = await this.dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: "GET",
        signal: abort.signal,
        headers: {
          accept: "application/json",
          ...this.o.headers,
          ...extra,
          ...(authorization !== undefined ? { authorization } : {}),
        },
      });
      const headers = flatHeaders(res.headers);
      const text = await readCapped(res, this.o.maxBodyBytes);
      return { status: res.statusCode, headers, body: parseBody(res.statusCode, headers, text) as B };
    } catch (err) {
      if (
        err instanceof Transient ||
        err instanceof DirectoryHttpError ||
        err instanceof SourceUnavailableError
      )
        throw err;
      const code = (err as { code?: string }).code ?? "";
      if (abort.signal.aborted) throw new Transient(`no whole answer within ${this.o.timeoutMs} ms`);
      if (RETRYABLE_NETWORK_CODES.has(code)) throw new Transient(`${code}`);
      // An unknown host name is a typo in the settings far more often than an outage (as for LDAP).
      if (code === "ENOTFOUND")
        throw new DirectoryError({
          message: `${this.o.directory} at ${url.origin}: no such host (ENOTFOUND): check the URL in the settings`,
        });
      throw new SourceUnavailableError({
        message: `${this.o.directory} at ${url.origin} cannot be reached (${code || (err as Error).message}): check the URL and the network`,
      });
    } finally {
      clearTimeout(timer);
    }
  }
}
