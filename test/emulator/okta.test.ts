/**
 * The Okta stand-in answers as Okta's management OpenAPI says (cursor paging through `Link`,
 * the rate-limit headers against its own `Date`, Okta's error bodies) over a real socket.
 */
import { randomUUID } from "node:crypto";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeDirectory, oktaGroupId } from "../../src/emulator/okta/directory.js";
import { startOktaStandIn, type OktaStandIn } from "../../src/emulator/okta/server.js";

const API_TOKEN = "ssws-stand-in-token";
let okta: OktaStandIn;
let privateKey: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];

async function get(path: string, auth = `SSWS ${API_TOKEN}`) {
  const res = await fetch(`${okta.url}${path}`, { headers: { Authorization: auth } });
  const text = await res.text();
  return {
    res,
    text,
    body: (() => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return undefined;
      }
    })(),
  };
}

async function assertion(o: { aud?: string; sub?: string; exp?: string; jti?: string } = {}) {
  return new SignJWT({})
    .setProtectedHeader({ alg: "RS256", kid: "key-1" })
    .setIssuer("0oa-stand-in-app")
    .setSubject(o.sub ?? "0oa-stand-in-app")
    .setAudience(o.aud ?? `${okta.url}/oauth2/v1/token`)
    .setIssuedAt()
    .setExpirationTime(o.exp ?? "5m")
    .setJti(o.jti ?? randomUUID())
    .sign(privateKey);
}

async function token(scope: string, jwt?: string) {
  const res = await fetch(`${okta.url}/oauth2/v1/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      scope,
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: jwt ?? (await assertion()),
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

beforeAll(async () => {
  const keys = await generateKeyPair("RS256", { extractable: true });
  privateKey = keys.privateKey;
  const directory = makeDirectory({ people: 2500, groups: 2 });
  okta = await startOktaStandIn({
    ...directory,
    quota: { limit: 40, windowSeconds: 60 },
    clockSkewMs: 3_600_000,
    apiTokens: [API_TOKEN],
    serviceApps: [
      {
        clientId: "0oa-stand-in-app",
        publicJwk: { ...(await exportJWK(keys.publicKey)), alg: "RS256" },
        scopes: ["okta.users.read", "okta.groups.read"],
      },
    ],
  });
});
afterAll(() => okta.close());

describe("Okta stand-in", () => {
  it("pages members through Link rel=next, at most 1000 a page, to the end", async () => {
    const ids: string[] = [];
    let path: string | undefined = `/api/v1/groups/${oktaGroupId(0)}/users?limit=5000`;
    let pages = 0;
    while (path) {
      const { res, body } = await get(path);
      expect(res.status).toBe(200);
      ids.push(...(body as { id: string }[]).map((u) => u.id));
      pages++;
      const link = /<([^>]+)>; rel="next"/.exec(res.headers.get("link") ?? "");
      path = link ? link[1]!.slice(okta.url.length) : undefined;
    }
    expect(pages).toBe(2);
    expect(ids).toHaveLength(1250);
    expect(new Set(ids).size).toBe(1250);
  });

  it("sends the rate-limit headers on its own clock, as the Date header tells", async () => {
    const { res } = await get("/api/v1/groups?limit=1");
    const date = Date.parse(res.headers.get("date")!);
    const reset = Number(res.headers.get("x-rate-limit-reset")) * 1000;
    expect(date - Date.now()).toBeGreaterThan(3_500_000);
    expect(reset - date).toBeGreaterThan(0);
    expect(reset - date).toBeLessThanOrEqual(61_000);
    expect(res.headers.get("x-rate-limit-limit")).toBe("40");
    expect(res.headers.get("link")).toContain('rel="next"');
  });

  it("picks groups by search, filter and q, and refuses a malformed search with E0000031", async () => {
    const search = await get(`/api/v1/groups?search=${encodeURIComponent('profile.name eq "TEAM-01"')}`);
    expect((search.body as { id: string }[]).map((g) => g.id)).toEqual([oktaGroupId(1)]);
    const filter = await get(`/api/v1/groups?filter=${encodeURIComponent(`id eq "${oktaGroupId(0)}"`)}`);
    expect((filter.body as unknown[]).length).toBe(1);
    const q = await get("/api/v1/groups?q=team");
    expect((q.body as unknown[]).length).toBe(2);
    expect(q.res.headers.get("link")).toBeNull();
    const bad = await get(`/api/v1/groups?search=${encodeURIComponent("profile.name eq")}`);
    expect(bad.res.status).toBe(400);
    expect(bad.body).toMatchObject({ errorCode: "E0000031" });
  });

  it("answers Okta's errors: E0000011, E0000007", async () => {
    expect((await get("/api/v1/groups", "SSWS wrong")).body).toMatchObject({
      errorCode: "E0000011",
      errorSummary: "Invalid token provided",
    });
    const missing = await get("/api/v1/groups/00gnothere/users");
    expect(missing.res.status).toBe(404);
    expect(missing.body).toMatchObject({ errorCode: "E0000007" });
  });

  it("issues a bearer token for a valid private_key_jwt assertion, and refuses a bad one", async () => {
    const ok = await token("okta.users.read okta.groups.read");
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ token_type: "Bearer", scope: "okta.users.read okta.groups.read" });
    expect((await get("/api/v1/groups?limit=1", `Bearer ${ok.body.access_token}`)).res.status).toBe(200);
    const usersOnly = await token("okta.users.read");
    const denied = await get("/api/v1/groups?limit=1", `Bearer ${usersOnly.body.access_token}`);
    expect(denied.res.status).toBe(403);
    expect(denied.body).toMatchObject({ errorCode: "E0000006" });
    expect((await token("okta.groups.manage")).body.error).toBe("invalid_scope");
    expect(
      (await token("okta.groups.read", await assertion({ aud: "https://elsewhere/oauth2/v1/token" }))).status,
    ).toBe(401);
    expect((await token("okta.groups.read", await assertion({ sub: "someone-else" }))).status).toBe(401);
    expect((await token("okta.groups.read", await assertion({ exp: "2h" }))).status).toBe(401);
    const once = await assertion({ jti: "same" });
    expect((await token("okta.groups.read", once)).status).toBe(200);
    expect((await token("okta.groups.read", once)).body.error_description).toMatch(/already been used/);
  });

  it("refuses requests past the quota with 429 E0000047 until the window resets", async () => {
    okta.quota.spend(1000);
    const { res, body } = await get("/api/v1/groups?limit=1");
    expect(res.status).toBe(429);
    expect(body).toMatchObject({ errorCode: "E0000047" });
    expect(res.headers.get("x-rate-limit-remaining")).toBe("0");
  });
});

describe("Okta stand-in rate-limit families", () => {
  it("counts each family in its own window, resetting at its own moment, with another integration's share", async () => {
    const o = await startOktaStandIn({
      ...makeDirectory({ people: 30, groups: 2 }),
      apiTokens: [API_TOKEN],
      clockSkewMs: -1_800_000,
      quota: {
        limit: 10,
        windowSeconds: 60,
        families: { "/api/v1/groups/{id}/users": { limit: 20, offsetSeconds: 30 } },
        others: { "/api/v1/groups/{id}/users": 0.25 },
      },
    });
    try {
      const at = async (p: string) => {
        const res = await fetch(`${o.url}${p}`, { headers: { Authorization: `SSWS ${API_TOKEN}` } });
        await res.text();
        const date = Date.parse(res.headers.get("date")!);
        return {
          status: res.status,
          limit: res.headers.get("x-rate-limit-limit"),
          remaining: Number(res.headers.get("x-rate-limit-remaining")),
          resetMs: Number(res.headers.get("x-rate-limit-reset")) * 1000 - date,
          resetAt: Number(res.headers.get("x-rate-limit-reset")),
        };
      };
      const groups = await at("/api/v1/groups?limit=1");
      const members = await at(`/api/v1/groups/${oktaGroupId(0)}/users?limit=5`);
      const group = await at(`/api/v1/groups/${oktaGroupId(1)}`);
      // Three families, three counts: the members' family has its own limit, and the other
      // integration took a quarter of it as the window opened.
      expect([groups.limit, groups.remaining]).toEqual(["10", 9]);
      expect([members.limit, members.remaining]).toEqual(["20", 14]);
      expect([group.limit, group.remaining]).toEqual(["10", 9]);
      // The members' windows end 30 s after the groups' ones (modulo the minute).
      expect(groups.resetAt % 60).toBe(0);
      expect(members.resetAt % 60).toBe(30);
      for (const r of [groups, members, group]) expect(r.resetMs).toBeGreaterThan(0);
      expect(o.quota.windows.map((w) => [w.family, w.used, w.spentByOthers])).toEqual([
        ["/api/v1/groups", 1, 0],
        ["/api/v1/groups/{id}/users", 6, 5],
        ["/api/v1/groups/{id}", 1, 0],
      ]);
      // The others spend the members' family: only that family answers 429.
      o.quota.spend(Infinity, "/api/v1/groups/{id}/users");
      expect((await at(`/api/v1/groups/${oktaGroupId(1)}/users?limit=5`)).status).toBe(429);
      expect((await at("/api/v1/groups?limit=1")).status).toBe(200);
      expect(o.quota.remaining("/api/v1/groups/{id}/users")).toBe(0);
      expect(o.quota.remaining("/api/v1/groups")).toBe(8);
    } finally {
      await o.close();
    }
  });
});

describe("Okta stand-in faults", () => {
  it("answers HTML, truncated JSON and a link loop on demand", async () => {
    const o = await startOktaStandIn({ ...makeDirectory({ people: 30, groups: 1 }), apiTokens: [API_TOKEN] });
    try {
      o.addFault({ match: /after=/, kind: "link-loop", times: 1 });
      o.addFault({ match: /limit=7$/, kind: "html", times: 1 });
      o.addFault({ match: /limit=8$/, kind: "truncated", times: 1 });
      const at = (p: string) => fetch(`${o.url}${p}`, { headers: { Authorization: `SSWS ${API_TOKEN}` } });
      const first = await at(`/api/v1/groups/${oktaGroupId(0)}/users?limit=10`);
      const next = /<([^>]+)>/.exec(first.headers.get("link")!)![1]!;
      const looped = await fetch(next, { headers: { Authorization: `SSWS ${API_TOKEN}` } });
      expect(/<([^>]+)>/.exec(looped.headers.get("link")!)![1]).toBe(next);
      expect((await at(`/api/v1/groups/${oktaGroupId(0)}/users?limit=7`)).headers.get("content-type")).toBe(
        "text/html",
      );
      const cut = await (await at(`/api/v1/groups/${oktaGroupId(0)}/users?limit=8`)).text();
      expect(() => JSON.parse(cut)).toThrow();
    } finally {
      await o.close();
    }
  });
});
