import { afterEach, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator/index.js";
import { validateAgainst } from "../helpers/openapi.js";
import { call } from "./http.js";

let emu: EmulatorHandle | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe("authentication", () => {
  it("answers 401 with an empty body and WWW-Authenticate for a missing, wrong or non-Bearer token", async () => {
    emu = await startEmulator({ faults: { error500: 1 } });
    for (const token of [null, "wrong-token", ""]) {
      const res = await call(emu, "GET", "/api/v1/entities/users", { token });
      expect(res.status, String(token)).toBe(401);
      expect(res.text).toBe("");
      expect(res.headers.get("www-authenticate")).toBe("Bearer");
      // Like the service, the empty answer still names its trace.
      expect(res.headers.get("x-gdc-trace-id")).toMatch(/^[0-9a-f]{32}$/);
    }
    const basic = await fetch(`${emu.url}/api/v1/profile`, {
      headers: { authorization: "Basic ZGV2LXRva2Vu" },
    });
    expect(basic.status).toBe(401);
    // Faults are injected after auth only: these 401s drew none.
    expect(emu.counters().faults).toEqual({});
    expect(emu.counters().byStatus).toEqual({ "401": 4 });
  });

  it("maps tokens to the caller that /api/v1/profile reports, in the official Profile shape", async () => {
    emu = await startEmulator({ tokens: { "t-1": "alice", "t-2": "bob" } });
    const res = await call(emu, "GET", "/api/v1/profile", { token: "t-2" });
    expect(res.status).toBe(200);
    expect(res.json.userId).toBe("bob");
    expect(validateAgainst("auth", "Profile", res.json)).toEqual([]);
    expect((await call(emu, "GET", "/api/v1/profile")).status).toBe(401);
  });

  it("answers 401 to an expired token, saying so in WWW-Authenticate (RFC 6750)", async () => {
    emu = await startEmulator({ expiredTokens: ["old-token"] });
    const res = await call(emu, "GET", "/api/v1/profile", { token: "old-token" });
    expect(res.status).toBe(401);
    expect(res.text).toBe("");
    expect(res.headers.get("www-authenticate")).toBe(
      'Bearer error="invalid_token", error_description="The access token expired"',
    );
  });

  it("answers 403 problem details for a forbidden token", async () => {
    emu = await startEmulator({ forbiddenTokens: ["read-only"] });
    const res = await call(emu, "GET", "/api/v1/entities/users", { token: "read-only" });
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.json).toMatchObject({
      status: 403,
      title: "Forbidden",
      detail: expect.any(String),
      traceId: expect.any(String),
    });
    expect(res.headers.get("x-gdc-trace-id")).toBe(res.json.traceId);
  });
});

describe("profiles and routing", () => {
  it("serves only the v1 paths under profile v1", async () => {
    emu = await startEmulator({ profile: "v1" });
    expect((await call(emu, "GET", "/api/v1/entities/users")).status).toBe(200);
    expect((await call(emu, "GET", "/api/v1/profile")).status).toBe(200);
    expect((await call(emu, "GET", "/api/entities/users")).status).toBe(404);
    expect((await call(emu, "GET", "/api/auth/users")).status).toBe(404);
  });

  it("serves only the legacy paths under profile legacy (no profile endpoint)", async () => {
    emu = await startEmulator({ profile: "legacy" });
    expect((await call(emu, "GET", "/api/auth/users")).status).toBe(200);
    expect((await call(emu, "GET", "/api/entities/userGroups")).status).toBe(200);
    const profile = await call(emu, "GET", "/api/v1/profile");
    expect(profile.status).toBe(404);
    expect(profile.json.status).toBe(404);
    expect((await call(emu, "GET", "/api/v1/auth/users")).status).toBe(404);
  });

  it("answers unknown paths 404 and unknown methods 405 with a fresh traceId each time", async () => {
    emu = await startEmulator();
    const a = await call(emu, "GET", "/api/v1/entities/dataSources");
    const b = await call(emu, "GET", "/api/v1/entities/dataSources");
    expect(a.status).toBe(404);
    expect(a.json.traceId).not.toBe(b.json.traceId);
    expect((await call(emu, "DELETE", "/api/v1/entities/users")).status).toBe(405);
    expect((await call(emu, "PATCH", "/api/v1/auth/users/x%40y.z", { body: {} })).status).toBe(405);
  });
});
