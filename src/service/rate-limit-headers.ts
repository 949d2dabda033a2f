/**
 * The one place that turns a server's rate-limit headers into waits, whatever convention the
 * service or a gateway in front of it follows:
 * - `Retry-After`: delta seconds or an HTTP date;
 * - `X-RateLimit-Remaining` / `X-RateLimit-Reset` (`-Limit`): the reset as delta seconds, epoch
 *   seconds (GitHub and many gateways) or epoch milliseconds, told apart by magnitude against the clock;
 * - the IETF draft (draft-ietf-httpapi-ratelimit-headers): `RateLimit: "default";r=50;t=30` with
 *   `RateLimit-Policy: "default";q=100;w=60` (drafts 07+), `RateLimit: limit=100, remaining=50,
 *   reset=30` (drafts 05-06), and `RateLimit-Limit` / `-Remaining` / `-Reset` (drafts 00-04).
 * Missing, negative, non-numeric or absurd values are ignored (the `onIgnored` callback names them
 * once each, for a debug line). Every wait is capped, so no timer can pass Node's limit.
 * Pure: `now` is passed in.
 */

/** Node clamps a longer `setTimeout` to 1 ms (with a TimeoutOverflowWarning): never ask for more. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A reset further away than this is not a rate-limit window but a misread or hostile value. */
export const ABSURD_RESET_MS = 24 * 3600 * 1000;

export type Headers = Record<string, string | string[] | undefined>;

export interface RateWindow {
  /** Requests left in the current window (as counted by the server when it answered). */
  remaining: number;
  /** Ms from `now` until the window resets; 0..capMs. */
  resetMs: number;
  limit?: number;
}

export interface ReadOptions {
  now: number;
  /** Cap on any wait the headers ask for (the client's maxRetryAfterMs). */
  capMs: number;
  /** Called with the header and its value when a value is ignored. */
  onIgnored?: (header: string, value: string) => void;
}

function first(h: Headers, name: string): string | undefined {
  const v = h[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s.trim() === "" ? undefined : s.trim();
}

/** A header's (first) value, trimmed; undefined when absent or blank. */
export { first as headerValue };

const NUMBER = /^\d+(\.\d+)?$/;

function clampWait(ms: number, capMs: number): number {
  return Math.min(Math.max(0, Math.ceil(ms)), capMs, MAX_TIMER_MS);
}

/**
 * `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP date. Undefined when
 * absent or unreadable; never negative; capped at `capMs` so a hostile header cannot stall a run.
 */
export function parseRetryAfter(
  header: string | undefined | null,
  now: number,
  capMs = 60_000,
): number | undefined {
  if (header === undefined || header === null) return undefined;
  const text = header.trim();
  if (text === "") return undefined;
  let ms: number;
  if (NUMBER.test(text)) {
    ms = Number(text) * 1000;
  } else {
    // An HTTP date always names a day and month; without letters Date.parse reads "-3" as a year.
    if (!/[A-Za-z]/.test(text)) return undefined;
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  return clampWait(ms, capMs);
}

/**
 * A reset value as ms from `now`. Epoch milliseconds and epoch seconds are near the clock's own
 * value in that unit (within a day; clocks drift); anything smaller is delta seconds. Undefined
 * for values that fit no reading: negative, non-numeric, or more than a day away.
 */
export function parseReset(value: string, now: number): number | undefined {
  if (!NUMBER.test(value)) return undefined;
  const v = Number(value);
  const near = (x: number, clock: number, unitMs: number): boolean =>
    Math.abs(x - clock) * unitMs <= ABSURD_RESET_MS;
  let ms: number;
  if (near(v, now, 1)) ms = v - now;
  else if (near(v, now / 1000, 1000)) ms = v * 1000 - now;
  else ms = v * 1000;
  // An epoch reset a moment in the past (clock skew) means "the window is over": wait 0.
  if (ms > ABSURD_RESET_MS) return undefined;
  return Math.max(0, ms);
}

/** Parameters of a structured-field member: `"default";r=50;t=30` or `limit=100, remaining=50`. */
function params(text: string): Map<string, string> {
  const out = new Map<string, string>();
  // One policy is enough: the first list member is the one that binds (the draft's usual case).
  for (const part of text.split(/[;,]/)) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim().toLowerCase();
    if (!out.has(key))
      out.set(
        key,
        part
          .slice(eq + 1)
          .trim()
          .replace(/^"|"$/g, ""),
      );
  }
  return out;
}

interface RawWindow {
  remaining?: string | undefined;
  reset?: string | undefined;
  limit?: string | undefined;
  /** Which header family, for debug lines. */
  family: string;
  /** The IETF reset is always delta seconds. */
  deltaOnly: boolean;
}

function rawWindow(h: Headers): RawWindow | undefined {
  const x = first(h, "x-ratelimit-remaining");
  if (x !== undefined) {
    return {
      remaining: x,
      reset: first(h, "x-ratelimit-reset"),
      limit: first(h, "x-ratelimit-limit"),
      family: "x-ratelimit",
      deltaOnly: false,
    };
  }
  const combined = first(h, "ratelimit");
  if (combined !== undefined) {
    const p = params(combined);
    const policy = params(first(h, "ratelimit-policy") ?? "");
    return {
      remaining: p.get("r") ?? p.get("remaining"),
      reset: p.get("t") ?? p.get("reset"),
      limit: policy.get("q") ?? p.get("limit"),
      family: "ratelimit",
      deltaOnly: true,
    };
  }
  const old = first(h, "ratelimit-remaining");
  if (old === undefined) return undefined;
  return {
    remaining: old,
    reset: first(h, "ratelimit-reset"),
    limit: first(h, "ratelimit-limit")?.split(/[,;]/)[0],
    family: "ratelimit",
    deltaOnly: true,
  };
}

/** The server's view of its current window, or undefined when it sent none (or nothing usable). */
export function readRateWindow(h: Headers, o: ReadOptions): RateWindow | undefined {
  const raw = rawWindow(h);
  if (!raw) return undefined;
  const ignore = (what: string, value: string | undefined): undefined => {
    o.onIgnored?.(`${raw.family}-${what}`, value ?? "(missing)");
    return undefined;
  };
  if (raw.remaining === undefined || !NUMBER.test(raw.remaining)) return ignore("remaining", raw.remaining);
  if (raw.reset === undefined) return ignore("reset", raw.reset);
  const resetMs = raw.deltaOnly
    ? NUMBER.test(raw.reset) && Number(raw.reset) * 1000 <= ABSURD_RESET_MS
      ? Number(raw.reset) * 1000
      : undefined
    : parseReset(raw.reset, o.now);
  if (resetMs === undefined) return ignore("reset", raw.reset);
  const limit = raw.limit !== undefined && NUMBER.test(raw.limit) ? Number(raw.limit) : undefined;
  return {
    remaining: Math.floor(Number(raw.remaining)),
    resetMs: clampWait(resetMs, o.capMs),
    ...(limit !== undefined ? { limit } : {}),
  };
}

/**
 * How long a 429 (or 503) holds every request back: its `Retry-After` when present (a 429 always
 * waits at least that, up to the cap), else the reset of an exhausted window, else undefined
 * (the caller backs off).
 */
export function throttleWaitMs(h: Headers, o: ReadOptions): number | undefined {
  const retryAfter = first(h, "retry-after");
  const fromRetryAfter = parseRetryAfter(retryAfter, o.now, o.capMs);
  if (retryAfter !== undefined && fromRetryAfter === undefined) o.onIgnored?.("retry-after", retryAfter);
  const w = readRateWindow(h, o);
  const fromWindow = w !== undefined && w.remaining <= 0 ? w.resetMs : undefined;
  if (fromRetryAfter === undefined) return fromWindow;
  return fromWindow === undefined ? fromRetryAfter : Math.max(fromRetryAfter, fromWindow);
}
