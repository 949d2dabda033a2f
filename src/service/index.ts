/**
 * `createClient`: the one entry point to the service. Builds the transport (undici pool, limits,
 * retries) and the profile client; `auto` asks `GET /api/v1/profile` once: 200 -> v1, 404 ->
 * legacy when a legacy path answers (else the base URL is wrong: exit 1), 401/403 -> a fatal
 * HttpError (a bad token is not an answer about the profile). The choice and why is logged.
 */
import { readFile } from "node:fs/promises";
import type { Logger } from "pino";
import { ConfigError, HttpError } from "../errors.js";
import { createLogger } from "../logging.js";
import { PROFILE_ANSWER, profileRead } from "./answers.js";
import { defined, ENTITY_MEDIA, JSON_MEDIA } from "./codec.js";
import { ProfileClient } from "./client.js";
import { legacyCodec } from "./profile-legacy.js";
import { v1Codec } from "./profile-v1.js";
import { MAX_TIMER_MS } from "./rate-limit-headers.js";
import { Transport } from "./transport.js";
import type { ServiceClient } from "./types.js";

export type { ActualState, ServiceClient } from "./types.js";
export { listActualState, type ListOptions } from "./actual.js";
export { listingCost, type ListingWay, type PermissionListing } from "./permission-listing.js";
export type { DataFilterListing } from "./data-filter-listing.js";
export type { DataFiltersClient } from "./types.js";
export { isRetryable, parseRetryAfter } from "./retry-policy.js";

export interface ClientOptions {
  baseUrl: string;
  token: string;
  profile: "auto" | "v1" | "legacy";
  /** Requests in flight at once (default 16). */
  concurrency?: number;
  /** Client-side rate limit (default 50; 0 = unlimited). */
  requestsPerSecond?: number;
  /** Retries after the first attempt (default 5). */
  retries?: number;
  /** Page size of entity listings (default 500, at most 1000). */
  pageSize?: number;
  timeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number; responseMs?: number };
  /** A body larger than this is a broken answer (default 256 MiB). */
  maxResponseBytes?: number;
  /** File with extra trusted CA certificates (PEM). TLS verification is never turned off. */
  caFile?: string;
  logger?: Logger;
  /** Waits between retries and for the rate limiter. Test hook: capture delays instead of waiting. */
  sleep?: (ms: number) => Promise<void>;
  /** 0..1, for backoff jitter. Test hook. */
  random?: () => number;
  /** Epoch ms of pacing and of slowing down and speeding up. Test hook: a clock that `sleep` advances. */
  now?: () => number;
  /** Cap on any wait the server asks for (Retry-After, a rate-limit reset), default 60 s. */
  maxRetryAfterMs?: number;
}

export const CLIENT_DEFAULTS = {
  concurrency: 16,
  requestsPerSecond: 50,
  retries: 5,
  pageSize: 500,
  maxPageSize: 1000,
  timeouts: { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000, responseMs: 120_000 },
  maxResponseBytes: 256 * 1024 * 1024,
  maxRetryAfterMs: 60_000,
} as const;

// Past MAX_TIMER_MS Node would clamp the timer to 1 ms (TimeoutOverflowWarning): never ask for that.
const realSleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(0, ms), MAX_TIMER_MS)));

function positiveInt(name: string, value: number | undefined, fallback: number, min: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min)
    throw new ConfigError({
      message: `client option ${name} must be an integer >= ${min}, got ${String(v)}`,
    });
  return v;
}

export async function createClient(options: ClientOptions): Promise<ServiceClient> {
  const ca = await checkTarget(options);
  const d = CLIENT_DEFAULTS;
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const transport = new Transport({
    baseUrl,
    token: options.token,
    concurrency: positiveInt("concurrency", options.concurrency, d.concurrency, 1),
    requestsPerSecond: Math.max(0, options.requestsPerSecond ?? d.requestsPerSecond),
    retries: positiveInt("retries", options.retries, d.retries, 0),
    timeouts: { ...d.timeouts, ...defined(options.timeouts ?? {}) },
    maxResponseBytes: positiveInt("maxResponseBytes", options.maxResponseBytes, d.maxResponseBytes, 1),
    ...(ca !== undefined ? { ca } : {}),
    logger: options.logger ?? createLogger({ level: "warn" }),
    sleep: options.sleep ?? realSleep,
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
    maxRetryAfterMs: options.maxRetryAfterMs ?? d.maxRetryAfterMs,
  });
  const pageSize = Math.min(d.maxPageSize, positiveInt("pageSize", options.pageSize, d.pageSize, 1));
  try {
    const logger = options.logger;
    return await profileClient({ profile: options.profile, transport, baseUrl, pageSize, logger });
  } catch (err) {
    // 401/403 during detection are thrown as they are: fatal HttpErrors, not a profile answer.
    await transport.close();
    throw err;
  }
}

/** The target's URL and token are usable; its CA file, if any, read. */
async function checkTarget(options: ClientOptions): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw new ConfigError({
      message: `target.baseUrl is not a URL: ${options.baseUrl}; use e.g. https://analytics.example.com`,
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError({ message: `target.baseUrl must be http(s), got ${url.protocol}` });
  }
  if (options.token === "")
    throw new ConfigError({ message: "the API token is empty; set USERSYNC_TOKEN or target.tokenFile" });
  let ca: string | undefined;
  if (options.caFile !== undefined) {
    try {
      ca = await readFile(options.caFile, "utf8");
    } catch (err) {
      throw new ConfigError({ message: `cannot read CA file ${options.caFile}: ${(err as Error).message}` });
    }
  }
  return ca;
}

/** The client for the profile asked for, or, for "auto", the one the service answers to. */
async function profileClient(o: {
  profile: ClientOptions["profile"];
  transport: Transport;
  baseUrl: string;
  pageSize: number;
  logger: Logger | undefined;
}): Promise<ServiceClient> {
  const { transport, baseUrl, pageSize } = o;
  if (o.profile !== "auto") {
    return new ProfileClient({
      codec: o.profile === "v1" ? v1Codec : legacyCodec,
      transport,
      baseUrl,
      pageSize,
    });
  }
  const { status, json } = await transport.request({
    method: "GET",
    path: "/api/v1/profile",
    mediaType: JSON_MEDIA,
    accept: [404],
    answer: PROFILE_ANSWER,
  });
  if (status === 404) {
    await expectLegacy(transport, baseUrl);
    o.logger?.info(
      { profile: "legacy" },
      `API dialect legacy (target.apiProfile auto): GET /api/v1/profile answered 404, ${LEGACY_PROBE} answered`,
    );
    return new ProfileClient({ codec: legacyCodec, transport, baseUrl, pageSize });
  }
  o.logger?.info({ profile: "v1" }, "API dialect v1 (target.apiProfile auto): GET /api/v1/profile answered");
  return new ProfileClient({
    codec: v1Codec,
    transport,
    baseUrl,
    pageSize,
    knownProfile: profileRead(json),
  });
}

const LEGACY_PROBE = "GET /api/entities/userGroups";

/**
 * `/api/v1/profile` answered 404: the legacy dialect, if its paths answer. When they do not
 * either, nothing of the service is at this URL (a path too many, like /gooddata or /api/v1, or
 * another server): a wrong target.baseUrl, not a legacy service whose plan would then fail on
 * the desired state's v1 fields.
 */
async function expectLegacy(transport: Transport, baseUrl: string): Promise<void> {
  const { status } = await transport.request({
    method: "GET",
    path: "/api/entities/userGroups?page=0&size=1",
    mediaType: ENTITY_MEDIA,
    accept: [404],
  });
  if (status !== 404) return;
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, "");
  const drop = path === "" ? "" : `, without a path: try ${url.origin} (not ${path})`;
  throw new HttpError({
    method: "GET",
    path: "/api/v1/profile",
    status: 404,
    message: `GET /api/v1/profile answered 404 (and the legacy paths too): nothing of the service answers at ${baseUrl}. Check target.baseUrl (--base-url): it is the service's root URL${drop}`,
  });
}
