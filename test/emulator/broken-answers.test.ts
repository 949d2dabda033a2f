/**
 * Broken answers (faults.brokenAnswers): each mode over a real socket, what the body looks like,
 * that only successful answers of the matching method and path are broken, that the handler still
 * ran (a write lands), and that the log and counters name the mode.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator/index.js";
import { call, userDoc } from "./http.js";

const USERS = "/api/v1/entities/users";
const ids = Array.from({ length: 5 }, (_, i) => `u${i}`);
const page = (n: number) => `${USERS}?page=${n}&size=2&metaInclude=page&sort=id`;

/** The answer's body as the chunks it arrived in. */
function chunks(emu: EmulatorHandle, path: string): Promise<{ status: number; parts: Buffer[] }> {
  return new Promise((resolve, reject) => {
    const req = request(`${emu.url}${path}`, { headers: { authorization: "Bearer dev-token" } }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (d: Buffer) => parts.push(d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, parts }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

describe("broken answers", () => {
  let emu: EmulatorHandle;
  beforeAll(async () => {
    emu = await startEmulator({
      mapTokenOwners: false,
      seed: { mappings: ids.map((id) => ({ id, authenticationId: `auth-${id}`, groups: [] })) },
    });
  });
  afterAll(() => emu.close());
  const broken = (rule: Parameters<EmulatorHandle["setFaults"]>[0]["brokenAnswers"]) => {
    emu.setFaults({ brokenAnswers: rule! });
    emu.resetLog();
  };

  it("html: a 200 sign-in page instead of JSON, logged as the fault", async () => {
    broken([{ mode: "html" }]);
    const res = await call(emu, "GET", "/api/v1/profile");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.text).toContain("Please log in");
    expect(emu.requestLog()).toEqual([expect.objectContaining({ status: 200, fault: "html" })]);
    expect(emu.counters().faults).toEqual({ html: 1 });
  });

  it("dataNull, truncated: the listing's own JSON, broken", async () => {
    broken([{ mode: "dataNull" }]);
    const nulled = await call(emu, "GET", page(0));
    expect(nulled.json).toMatchObject({ data: null, meta: { page: { totalElements: 5 } } });
    expect((await call(emu, "GET", "/api/v1/profile")).json).toEqual({ data: null });
    expect((await call(emu, "GET", "/api/v1/auth/users")).json).toEqual({ data: null });
    broken([{ mode: "truncated" }]);
    const cut = await call(emu, "GET", page(0));
    expect(cut.status).toBe(200);
    expect(cut.headers.get("content-type")).toBe("application/vnd.gooddata.api+json");
    expect(() => JSON.parse(cut.text) as unknown).toThrow();
    emu.setFaults({});
    const whole = await call(emu, "GET", page(0));
    expect(whole.text.startsWith(cut.text)).toBe(true);
    expect(cut.text.length).toBe(Math.ceil(whole.text.length / 2));
  });

  it("repeatPage: every page is page 0; emptyPage: the pages between the first and the last are empty", async () => {
    broken([{ mode: "repeatPage" }]);
    const repeated = await Promise.all([0, 1, 2].map((n) => call(emu, "GET", page(n))));
    for (const r of repeated) expect(r.json.data.map((d: { id: string }) => d.id)).toEqual(["u0", "u1"]);
    broken([{ mode: "emptyPage" }]);
    const emptied = await Promise.all([0, 1, 2].map((n) => call(emu, "GET", page(n))));
    expect(emptied.map((r) => r.json.data.map((d: { id: string }) => d.id))).toEqual([
      ["u0", "u1"],
      [],
      ["u4"],
    ]);
    expect(emptied[1]!.json.meta.page).toEqual({ number: 1, size: 2, totalElements: 5, totalPages: 3 });
  });

  it("oversize: the JSON padded to the size asked, with no Content-Length to go by", async () => {
    broken([{ mode: "oversize", bytes: 300_000 }]);
    const res = await chunks(emu, page(0));
    const body = Buffer.concat(res.parts);
    expect(body.length).toBe(300_000);
    expect(JSON.parse(body.toString())).toMatchObject({ data: [{ id: "u0" }, { id: "u1" }] });
    const raw = await fetch(`${emu.url}${page(0)}`, { headers: { authorization: "Bearer dev-token" } });
    expect(raw.headers.get("content-length")).toBeNull();
    await raw.arrayBuffer();
  });

  it("trickle: the whole answer, one byte at a time", async () => {
    broken([{ mode: "trickle", intervalMs: 1, pathPattern: /^\/api\/v1\/profile$/ }]);
    const res = await chunks(emu, "/api/v1/profile");
    const body = Buffer.concat(res.parts).toString();
    expect(JSON.parse(body)).toMatchObject({ userId: "admin" });
    expect(res.parts.length).toBeGreaterThan(body.length / 2);
  });

  it("breaks only successful answers of the rule's methods and paths; the handler still ran", async () => {
    broken([{ mode: "html", methods: ["POST"], pathPattern: /\/entities\/users$/ }]);
    expect((await call(emu, "GET", page(0))).json.data).toHaveLength(2);
    const created = await call(emu, "POST", USERS, { body: userDoc("landed") });
    expect([created.status, created.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
    expect(emu.state().mappings.map((m) => m.id)).toContain("landed");
    const duplicate = await call(emu, "POST", USERS, { body: userDoc("landed") });
    expect([duplicate.status, duplicate.json.status]).toEqual([409, 409]);
    expect(emu.requestLog().map((e) => [e.method, e.status, e.fault])).toEqual([
      ["GET", 200, undefined],
      ["POST", 201, "html"],
      ["POST", 409, undefined],
    ]);
  });

  it("breaks a seeded share of the matching answers, the same ones for the same seed", async () => {
    const run = async (): Promise<boolean[]> => {
      emu.setFaults({ seed: 7, brokenAnswers: [{ mode: "dataNull", share: 0.5 }] });
      const out: boolean[] = [];
      for (let i = 0; i < 20; i++) out.push((await call(emu, "GET", page(0))).json.data === null);
      return out;
    };
    const first = await run();
    expect(first.filter(Boolean).length).toBeGreaterThan(2);
    expect(first.filter((b) => !b).length).toBeGreaterThan(2);
    expect(await run()).toEqual(first);
  });
});
