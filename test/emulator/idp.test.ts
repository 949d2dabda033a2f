import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator/index.js";
import { validateAgainst } from "../helpers/openapi.js";
import { call } from "./http.js";

describe.each([
  ["v1", "/api/v1/auth/users"],
  ["legacy", "/api/auth/users"],
])("built-in IdP users (%s)", (_profile, base) => {
  let emu: EmulatorHandle;
  beforeEach(async () => {
    emu = await startEmulator({
      mapTokenOwners: false,
      seed: {
        idpUsers: [{ email: "Ann@Example.com", displayName: "Ann", password: "old-secret" }],
        mappings: [],
      },
    });
  });
  afterEach(() => emu.close());

  it("creates a user with a generated authenticationId and password null", async () => {
    const res = await call(emu, "POST", base, {
      body: { email: "bob@example.com", displayName: "Bob", password: "s3cret" },
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      email: "bob@example.com",
      displayName: "Bob",
      authenticationId: expect.any(String),
      password: null,
    });
    expect(res.json.authenticationId).not.toBe("bob@example.com");
    expect(res.json.authenticationId.length).toBeGreaterThan(10);
    expect(validateAgainst("auth", "AuthUser", { ...res.json, password: undefined })).toEqual([]);
    const stored = emu.state().idpUsers.find((u) => u.email === "bob@example.com");
    expect(stored).toEqual({
      email: "bob@example.com",
      displayName: "Bob",
      authenticationId: res.json.authenticationId,
      password: "s3cret",
    });
  });

  it("lists a plain array without passwords, matching the official schema", async () => {
    const res = await call(emu, "GET", base);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.json).toEqual([
      { email: "Ann@Example.com", displayName: "Ann", authenticationId: expect.any(String) },
    ]);
    expect(res.text).not.toContain("old-secret");
    for (const u of res.json) expect(validateAgainst("auth", "AuthUser", u)).toEqual([]);
  });

  it("looks emails up case-insensitively and keeps the stored case", async () => {
    const res = await call(emu, "GET", `${base}/${encodeURIComponent("ann@EXAMPLE.com")}`);
    expect(res.status).toBe(200);
    expect(res.json.email).toBe("Ann@Example.com");
    expect(res.json).not.toHaveProperty("password");
  });

  it("answers 409 on a duplicate create, or 400 'user already exists' when asked", async () => {
    const dup = await call(emu, "POST", base, { body: { email: "ann@example.com", displayName: "Ann 2" } });
    expect(dup.status).toBe(409);
    expect(dup.headers.get("content-type")).toBe("application/problem+json");
    expect(dup.json).toMatchObject({ status: 409, title: "Conflict", traceId: expect.any(String) });
    emu.setFaults({ duplicateIdpAs400: true });
    const dup400 = await call(emu, "POST", base, {
      body: { email: "ann@example.com", displayName: "Ann 2" },
    });
    expect(dup400.status).toBe(400);
    expect(dup400.json.detail).toBe("user already exists");
    expect(emu.state().idpUsers).toHaveLength(1);
  });

  it("PUT without a password keeps it, with a password sets it", async () => {
    const path = `${base}/${encodeURIComponent("ann@example.com")}`;
    const keep = await call(emu, "PUT", path, {
      body: { email: "ann@example.com", displayName: "Ann Smith" },
    });
    expect(keep.status).toBe(200);
    expect(keep.json).toMatchObject({ email: "Ann@Example.com", displayName: "Ann Smith" });
    expect(emu.state().idpUsers[0]).toMatchObject({ displayName: "Ann Smith", password: "old-secret" });
    const set = await call(emu, "PUT", path, {
      body: { email: "ann@example.com", displayName: "Ann Smith", password: "new-secret" },
    });
    expect(set.status).toBe(200);
    expect(set.text).not.toContain("new-secret");
    expect(emu.state().idpUsers[0]?.password).toBe("new-secret");
  });

  it("rejects a PUT whose email differs from the path, a changed authenticationId, a missing user", async () => {
    const path = `${base}/${encodeURIComponent("ann@example.com")}`;
    const other = await call(emu, "PUT", path, { body: { email: "eve@example.com", displayName: "Eve" } });
    expect(other.status).toBe(400);
    const authId = await call(emu, "PUT", path, {
      body: { email: "ann@example.com", displayName: "A", authenticationId: "forged" },
    });
    expect(authId.status).toBe(400);
    expect(authId.json.detail).toContain("authenticationId");
    const same = emu.state().idpUsers[0]?.authenticationId;
    const ok = await call(emu, "PUT", path, {
      body: { email: "ann@example.com", displayName: "A", authenticationId: same },
    });
    expect(ok.status).toBe(200);
    const missing = await call(emu, "PUT", `${base}/nobody%40example.com`, {
      body: { email: "nobody@example.com", displayName: "N" },
    });
    expect(missing.status).toBe(404);
  });

  it("rejects a create with an authenticationId, bodies the AuthUser schema rejects, and non-JSON media types", async () => {
    const withId = await call(emu, "POST", base, {
      body: { email: "c@example.com", displayName: "C", authenticationId: "x" },
    });
    expect(withId.status).toBe(400);
    const bad = { email: "c@example.com" };
    expect(validateAgainst("auth", "AuthUser", bad)).not.toEqual([]);
    expect((await call(emu, "POST", base, { body: bad })).status).toBe(400);
    const badType = { email: 42, displayName: "C" };
    expect(validateAgainst("auth", "AuthUser", badType)).not.toEqual([]);
    expect((await call(emu, "POST", base, { body: badType })).status).toBe(400);
    const text = await call(emu, "POST", base, {
      body: { email: "c@example.com", displayName: "C" },
      contentType: "text/plain",
    });
    expect(text.status).toBe(415);
    const charset = await call(emu, "POST", base, {
      body: { email: "c@example.com", displayName: "C" },
      contentType: "application/json; charset=utf-8",
    });
    expect(charset.status).toBe(200);
    expect((await call(emu, "POST", base, { body: "{not json" })).status).toBe(400);
  });

  it("DELETE removes the credentials only: the mapping stays", async () => {
    const authenticationId = emu.state().idpUsers[0]?.authenticationId as string;
    const map = await call(
      emu,
      "POST",
      base.includes("/v1/") ? "/api/v1/entities/users" : "/api/entities/users",
      {
        body: { data: { id: "ann", type: "user", attributes: { authenticationId } } },
      },
    );
    expect(map.status).toBe(201);
    const del = await call(emu, "DELETE", `${base}/ann%40example.com`);
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect(emu.state().idpUsers).toEqual([]);
    expect(emu.state().mappings).toEqual([{ id: "ann", authenticationId, groups: [] }]);
    expect((await call(emu, "GET", `${base}/ann%40example.com`)).status).toBe(404);
    expect((await call(emu, "DELETE", `${base}/ann%40example.com`)).status).toBe(404);
  });
});

describe("builtinIdp: false", () => {
  it("answers 404 on the identity provider's paths and serves the rest", async () => {
    const emu = await startEmulator({ port: 0, tokens: { t: "admin" }, builtinIdp: false });
    try {
      const auth = { authorization: "Bearer t" };
      expect((await fetch(`${emu.url}/api/v1/auth/users`, { headers: auth })).status).toBe(404);
      expect((await fetch(`${emu.url}/api/auth/users/a@b.co`, { headers: auth })).status).toBe(404);
      expect((await fetch(`${emu.url}/api/v1/entities/users`, { headers: auth })).status).toBe(200);
    } finally {
      await emu.close();
    }
  });
});
