import { describe, expect, it } from "vitest";
import { HttpError, InputError, NetworkError } from "../../src/errors.js";
import {
  backoffDelay,
  isRetryable,
  isRetryableStatus,
  parseRetryAfter,
} from "../../src/service/retry-policy.js";

const http = (status: number) => new HttpError({ method: "GET", path: "/x", status });
const net = (code: string) =>
  new NetworkError({ method: "GET", path: "/x", causeCode: code, message: "boom" });
const ask = (error: unknown, over: Partial<Parameters<typeof isRetryable>[0]> = {}) =>
  isRetryable({ error, method: "GET", verifiable: false, attempt: 1, retries: 3, ...over });

describe("isRetryableStatus", () => {
  it.each([
    [408, true],
    [429, true],
    [500, true],
    [502, true],
    [503, true],
    [504, true],
    [501, false],
    [400, false],
    [401, false],
    [403, false],
    [404, false],
    [409, false],
    [422, false],
  ])("%i -> %s", (status, expected) => {
    expect(isRetryableStatus(status)).toBe(expected);
  });
});

describe("isRetryable", () => {
  it("retries retryable statuses and network failures of idempotent requests", () => {
    expect(ask(http(503))).toBe(true);
    expect(ask(net("ECONNRESET"))).toBe(true);
    expect(ask(net("UND_ERR_HEADERS_TIMEOUT"), { method: "PUT" })).toBe(true);
    expect(ask(net("UND_ERR_SOCKET"), { method: "DELETE" })).toBe(true);
  });
  it("never retries auth and validation errors", () => {
    for (const s of [400, 401, 403, 404, 409]) expect(ask(http(s))).toBe(false);
  });
  it("stops when the retries are spent", () => {
    expect(ask(http(500), { attempt: 3, retries: 3 })).toBe(true);
    expect(ask(http(500), { attempt: 4, retries: 3 })).toBe(false);
    expect(ask(http(500), { retries: 0 })).toBe(false);
  });
  it("retries a POST only when its outcome can be verified", () => {
    expect(ask(net("ECONNRESET"), { method: "POST" })).toBe(false);
    expect(ask(net("ECONNRESET"), { method: "POST", verifiable: true })).toBe(true);
    expect(ask(http(500), { method: "POST", verifiable: true })).toBe(true);
  });
  it("retries a POST the API makes idempotent (bulk membership) like a PUT", () => {
    expect(ask(net("UND_ERR_SOCKET"), { method: "POST", idempotent: true })).toBe(true);
    expect(ask(http(503), { method: "POST", idempotent: true })).toBe(true);
    expect(ask(http(404), { method: "POST", idempotent: true })).toBe(false);
    expect(ask(http(500), { method: "POST", idempotent: true, attempt: 4, retries: 3 })).toBe(false);
  });
  it("does not retry unknown errors or unknown network codes", () => {
    expect(ask(new Error("???"))).toBe(false);
    expect(ask(new TypeError("x is undefined"))).toBe(false);
    expect(ask(new InputError({ message: "bad", problems: [] }))).toBe(false);
    expect(ask(net("ERR_SOMETHING_NEW"))).toBe(false);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  it("reads delta seconds", () => {
    expect(parseRetryAfter("2", now)).toBe(2000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("1.5", now)).toBe(1500);
  });
  it("reads an HTTP date relative to now, never negative", () => {
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:05 GMT", now)).toBe(5000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now)).toBe(0);
  });
  it("caps long waits", () => {
    expect(parseRetryAfter("86400", now)).toBe(60_000);
    expect(parseRetryAfter("86400", now, 5000)).toBe(5000);
  });
  it("ignores absent or garbage values", () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("-3", now)).toBeUndefined();
  });
});

describe("backoffDelay", () => {
  it("grows exponentially, jitters within [50%, 100%] and is capped", () => {
    expect(backoffDelay({ retry: 1, random: () => 0 })).toBe(100);
    expect(backoffDelay({ retry: 1, random: () => 1 })).toBe(200);
    expect(backoffDelay({ retry: 3, random: () => 1 })).toBe(800);
    expect(backoffDelay({ retry: 30, random: () => 1 })).toBe(10_000);
  });
});
