import { describe, expect, it } from "vitest";
import { toHttpError } from "../../src/service/error-body.js";

const base = {
  method: "POST",
  path: "/api/v1/auth/users",
  headers: {},
  now: 0,
  maxRetryAfterMs: 60_000,
  secrets: ["sekret-token-123", "Pa55word!"],
  isCreate: false,
};

describe("toHttpError", () => {
  it("reads problem details", () => {
    const e = toHttpError({
      ...base,
      status: 400,
      body: JSON.stringify({
        title: "Bad Request",
        status: 400,
        detail: "data.id: must match",
        traceId: "t-1",
      }),
    });
    expect(e.status).toBe(400);
    expect(e.detail).toBe("data.id: must match");
    expect(e.traceId).toBe("t-1");
    expect(e.retryable).toBe(false);
    expect(e.message).toBe("POST /api/v1/auth/users answered 400: data.id: must match (traceId t-1)");
  });
  it("reads a throttling {error, message} body and Retry-After", () => {
    const e = toHttpError({
      ...base,
      status: 429,
      body: '{"error":"Too Many Requests","message":"slow down"}',
      headers: { "retry-after": "3" },
    });
    expect(e.detail).toBe("slow down");
    expect(e.retryable).toBe(true);
    expect(e.retryAfterMs).toBe(3000);
  });
  it("handles an empty body", () => {
    const e = toHttpError({ ...base, status: 401, body: "" });
    expect(e.detail).toBeUndefined();
    expect(e.fatal).toBe(true);
    expect(e.message).toBe("POST /api/v1/auth/users answered 401");
  });
  it("keeps the start of a non-JSON body, on one line", () => {
    const e = toHttpError({
      ...base,
      status: 502,
      body: "<html>\n<body>Bad gateway</body></html>" + "x".repeat(1000),
    });
    expect(e.detail?.startsWith("<html> <body>Bad gateway")).toBe(true);
    expect(e.detail!.length).toBeLessThan(310);
    expect(e.retryable).toBe(true);
  });
  it("marks duplicates of a create as exists: 409, and 400 'user already exists'", () => {
    expect(toHttpError({ ...base, status: 409, body: "", isCreate: true }).exists).toBe(true);
    expect(
      toHttpError({ ...base, status: 400, body: '{"detail":"User already exists"}', isCreate: true }).exists,
    ).toBe(true);
    expect(toHttpError({ ...base, status: 400, body: '{"detail":"bad email"}', isCreate: true }).exists).toBe(
      false,
    );
    expect(toHttpError({ ...base, status: 409, body: "", isCreate: false }).exists).toBe(false);
  });
  it("scrubs secrets echoed by the server", () => {
    const e = toHttpError({
      ...base,
      status: 400,
      body: '{"detail":"password Pa55word! too weak for sekret-token-123","traceId":"x"}',
    });
    expect(e.message).not.toContain("Pa55word!");
    expect(e.message).not.toContain("sekret-token-123");
    expect(e.detail).toContain("[redacted]");
  });
  it("takes the trace id from a header when the body has none", () => {
    expect(toHttpError({ ...base, status: 500, body: "", headers: { "x-trace-id": "h-9" } }).traceId).toBe(
      "h-9",
    );
  });
  it("reads the service's X-GDC-TRACE-ID, so an empty 401 keeps its trace id", () => {
    const e = toHttpError({ ...base, status: 401, body: "", headers: { "x-gdc-trace-id": "5b2f" } });
    expect(e.traceId).toBe("5b2f");
    expect(e.message).toBe("POST /api/v1/auth/users answered 401 (traceId 5b2f)");
  });
  it("an empty 401 says why when WWW-Authenticate does (RFC 6750 error_description)", () => {
    const headers = {
      "www-authenticate": 'Bearer error="invalid_token", error_description="The access token expired"',
    };
    expect(toHttpError({ ...base, status: 401, body: "", headers }).message).toBe(
      "POST /api/v1/auth/users answered 401: The access token expired",
    );
    // A body that says something wins over the header.
    const body = '{"detail":"token revoked"}';
    expect(toHttpError({ ...base, status: 401, body, headers }).detail).toBe("token revoked");
  });
});
