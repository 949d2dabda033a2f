/** Every form of rate-limit header real servers and gateways send, and what wait it becomes. */
import { describe, expect, it } from "vitest";
import {
  MAX_TIMER_MS,
  parseReset,
  readRateWindow,
  throttleWaitMs,
  type Headers,
} from "../../src/service/rate-limit-headers.js";

const now = Date.parse("2026-01-01T00:00:00.000Z");
const nowSec = now / 1000;
const capMs = 60_000;

function read(h: Headers): { window: ReturnType<typeof readRateWindow>; ignored: string[] } {
  const ignored: string[] = [];
  const window = readRateWindow(h, { now, capMs, onIgnored: (name, v) => ignored.push(`${name}=${v}`) });
  return { window, ignored };
}

describe("readRateWindow", () => {
  const cases: Array<[string, Headers, { remaining: number; resetMs: number; limit?: number } | undefined]> =
    [
      [
        "X-RateLimit-Reset delta seconds",
        { "x-ratelimit-remaining": "7", "x-ratelimit-reset": "3", "x-ratelimit-limit": "20" },
        { remaining: 7, resetMs: 3000, limit: 20 },
      ],
      [
        "X-RateLimit-Reset epoch seconds",
        { "x-ratelimit-remaining": "7", "x-ratelimit-reset": String(nowSec + 2) },
        { remaining: 7, resetMs: 2000 },
      ],
      [
        "X-RateLimit-Reset epoch milliseconds",
        { "x-ratelimit-remaining": "7", "x-ratelimit-reset": String(now + 1500) },
        { remaining: 7, resetMs: 1500 },
      ],
      [
        "epoch seconds a moment in the past (clock skew): window over",
        { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(nowSec - 1) },
        { remaining: 0, resetMs: 0 },
      ],
      [
        "epoch seconds an hour away: capped",
        { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(nowSec + 3600) },
        { remaining: 0, resetMs: capMs },
      ],
      [
        "fractional delta seconds",
        { "x-ratelimit-remaining": "1", "x-ratelimit-reset": "0.25" },
        { remaining: 1, resetMs: 250 },
      ],
      [
        "IETF draft 07+: RateLimit + RateLimit-Policy",
        { ratelimit: '"default";r=50;t=30', "ratelimit-policy": '"default";q=100;w=60' },
        { remaining: 50, resetMs: 30_000, limit: 100 },
      ],
      [
        "IETF draft 05-06: RateLimit dictionary",
        { ratelimit: "limit=100, remaining=5, reset=2" },
        { remaining: 5, resetMs: 2000, limit: 100 },
      ],
      [
        "IETF draft 00-04: RateLimit-* headers",
        { "ratelimit-limit": "100, 100;w=60", "ratelimit-remaining": "4", "ratelimit-reset": "9" },
        { remaining: 4, resetMs: 9000, limit: 100 },
      ],
      ["no rate-limit headers", {}, undefined],
    ];
  it.each(cases)("%s", (_name, headers, expected) => {
    const { window, ignored } = read(headers);
    expect(window).toEqual(expected);
    expect(ignored).toEqual([]);
  });

  const ignoredCases: Array<[string, Headers]> = [
    ["negative reset", { "x-ratelimit-remaining": "3", "x-ratelimit-reset": "-5" }],
    ["non-numeric reset", { "x-ratelimit-remaining": "3", "x-ratelimit-reset": "soon" }],
    ["missing reset", { "x-ratelimit-remaining": "3" }],
    [
      "absurd reset: epoch seconds 57 years off",
      { "x-ratelimit-remaining": "3", "x-ratelimit-reset": String(nowSec * 2) },
    ],
    ["absurd reset: delta of 10 days", { "x-ratelimit-remaining": "3", "x-ratelimit-reset": "864000" }],
    [
      "absurd reset: epoch ms a year ahead",
      { "x-ratelimit-remaining": "3", "x-ratelimit-reset": String(now + 365 * 86_400_000) },
    ],
    ["negative remaining", { "x-ratelimit-remaining": "-1", "x-ratelimit-reset": "1" }],
    ["non-numeric remaining", { "x-ratelimit-remaining": "many", "x-ratelimit-reset": "1" }],
    ["IETF reset that is an epoch (the draft says delta)", { ratelimit: `"default";r=5;t=${nowSec}` }],
    ["IETF without remaining", { ratelimit: '"default";t=5' }],
  ];
  it.each(ignoredCases)("ignores %s, naming it once", (_name, headers) => {
    const { window, ignored } = read(headers);
    expect(window).toBeUndefined();
    expect(ignored).toHaveLength(1);
  });
});

describe("parseReset tells units apart by magnitude against the clock", () => {
  it.each([
    ["0", 0],
    ["1", 1000],
    ["60", 60_000],
    [String(nowSec + 5), 5000],
    [String(now + 5), 5],
    [String(now - 5), 0],
  ])("%s -> %i ms", (value, ms) => {
    expect(parseReset(value, now)).toBe(ms);
  });
});

describe("throttleWaitMs (a 429's wait)", () => {
  const wait = (h: Headers, cap = capMs): number | undefined => throttleWaitMs(h, { now, capMs: cap });
  it("Retry-After delta seconds and HTTP date", () => {
    expect(wait({ "retry-after": "2" })).toBe(2000);
    expect(wait({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" })).toBe(5000);
  });
  it("an exhausted window without Retry-After waits for the reset, in every unit", () => {
    expect(wait({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": "3" })).toBe(3000);
    expect(wait({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(nowSec + 3) })).toBe(3000);
    expect(wait({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(now + 3000) })).toBe(3000);
    expect(wait({ ratelimit: '"default";r=0;t=3' })).toBe(3000);
  });
  it("always waits at least Retry-After, even when the window says sooner", () => {
    const h = { "retry-after": "2", "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(nowSec) };
    expect(wait(h)).toBe(2000);
  });
  it("the epoch reset of the issue is never a 57-year wait or a 1 ms one", () => {
    const h = { "retry-after": "1", "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(nowSec + 1) };
    expect(wait(h)).toBe(1000);
  });
  it("every wait is capped, and never past Node's timer limit", () => {
    expect(wait({ "retry-after": "86400" })).toBe(capMs);
    expect(wait({ "retry-after": "86400" }, Number.MAX_SAFE_INTEGER)).toBe(86_400_000);
    expect(wait({ "retry-after": "99999999999" }, Number.MAX_SAFE_INTEGER)).toBe(MAX_TIMER_MS);
  });
  it("no headers: no server wait (the client backs off)", () => {
    expect(wait({})).toBeUndefined();
    expect(wait({ "retry-after": "later" })).toBeUndefined();
  });
});
