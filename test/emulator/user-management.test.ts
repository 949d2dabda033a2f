/**
 * The userManagement actions of bulk membership over a real socket: bodies and answers checked
 * against the official OpenAPI, idempotence, all-or-nothing on unknown ids, problem details,
 * 405 on other methods, the `userManagement: 404 | 405` option and the shared fault injection.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorHandle, type EmulatorOptions } from "../../src/emulator/index.js";
import { requestBodyProblems, validateAgainst } from "../helpers/openapi.js";
import { call, type Answer } from "./http.js";

const UM = "/api/v1/actions/userManagement";
const add = (g: string) => `${UM}/userGroups/${g}/addMembers`;
const remove = (g: string) => `${UM}/userGroups/${g}/removeMembers`;
const members = (g: string) => `${UM}/userGroups/${g}/members`;
const body = (...ids: string[]) => ({ members: ids.map((id) => ({ id })) });

let emu: EmulatorHandle | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function start(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  emu = await startEmulator({
    mapTokenOwners: false,
    seed: {
      groups: [{ id: "all" }, { id: "eng", parents: ["all"] }, { id: "ops" }],
      mappings: [
        { id: "ann", firstname: "Ann", lastname: "Lee", groups: ["eng"] },
        { id: "bob", groups: ["eng", "ops"] },
        { id: "cy", groups: [] },
      ],
    },
    ...options,
  });
  return emu;
}

/** A POST the way the client sends it, its body checked against the official spec first. */
async function post(e: EmulatorHandle, path: string, payload: unknown): Promise<Answer> {
  expect(requestBodyProblems("POST", path, payload)).toEqual([]);
  return call(e, "POST", path, { body: payload, contentType: "application/json" });
}

const groupsOf = (e: EmulatorHandle) => Object.fromEntries(e.state().mappings.map((m) => [m.id, m.groups]));

describe("addMembers and removeMembers", () => {
  it("add: 204, no body; adding again changes nothing (idempotent, no duplicate)", async () => {
    const e = await start();
    const res = await post(e, add("ops"), body("ann", "cy"));
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(groupsOf(e)).toEqual({ ann: ["eng", "ops"], bob: ["eng", "ops"], cy: ["ops"] });
    expect((await post(e, add("ops"), body("ann", "ann", "bob"))).status).toBe(204);
    expect(groupsOf(e)).toEqual({ ann: ["eng", "ops"], bob: ["eng", "ops"], cy: ["ops"] });
  });

  it("remove: 204; removing someone who is not a member changes nothing", async () => {
    const e = await start();
    expect((await post(e, remove("eng"), body("ann", "cy"))).status).toBe(204);
    expect(groupsOf(e)).toEqual({ ann: [], bob: ["eng", "ops"], cy: [] });
    expect((await post(e, remove("eng"), body("ann"))).status).toBe(204);
    expect((await post(e, remove("eng"), body())).status).toBe(204);
    expect(groupsOf(e)).toEqual({ ann: [], bob: ["eng", "ops"], cy: [] });
  });

  it("an unknown group or user: 404 problem details naming it, and nothing changed", async () => {
    const e = await start();
    const noGroup = await post(e, add("nope"), body("ann"));
    expect(noGroup.status).toBe(404);
    expect(noGroup.headers.get("content-type")).toBe("application/problem+json");
    expect(noGroup.json).toMatchObject({ status: 404, detail: "userGroup nope not found" });
    const noUser = await post(e, add("ops"), body("ann", "ghost"));
    expect(noUser.status).toBe(404);
    expect(noUser.json.detail).toBe("user(s) not found: ghost; nothing was changed");
    expect(groupsOf(e)["ann"]).toEqual(["eng"]);
  });

  it("a body the spec does not allow: 400; another media type: 415; another method: 405", async () => {
    const e = await start();
    expect(requestBodyProblems("POST", add("ops"), { members: [{ name: "x" }] })).not.toEqual([]);
    const bad = await call(e, "POST", add("ops"), {
      body: { members: [{ name: "x" }] },
      contentType: "application/json",
    });
    expect(bad.status).toBe(400);
    expect(bad.json.detail).toBe("members[0] must be {id: string}");
    const entity = await call(e, "POST", add("ops"), { body: body("ann") });
    expect(entity.status).toBe(415);
    const get = await call(e, "GET", add("ops"));
    expect(get.status).toBe(405);
    expect(get.json.detail).toBe("GET is not allowed on userGroups/{userGroupId}/addMembers (POST)");
    expect(
      (await call(e, "POST", members("ops"), { body: body(), contentType: "application/json" })).status,
    ).toBe(405);
    expect(groupsOf(e)["ann"]).toEqual(["eng"]);
  });
});

describe("members", () => {
  it("reads a group back: every member, sorted, with a name when the user has one", async () => {
    const e = await start();
    const res = await call(e, "GET", members("eng"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(validateAgainst("metadata", "UserManagementUserGroupMembers", res.json)).toEqual([]);
    expect(res.json).toEqual({ members: [{ id: "ann", name: "Ann Lee" }, { id: "bob" }] });
    expect((await call(e, "GET", members("all"))).json).toEqual({ members: [] });
    expect((await call(e, "GET", members("nope"))).status).toBe(404);
  });
});

describe("removeUsersUserGroups", () => {
  it("deletes the users and groups named; a deleted group's members lose it; unknown ids are skipped", async () => {
    const e = await start();
    const payload = [
      { id: "cy", type: "user" },
      { id: "ops", type: "userGroup" },
      { id: "ghost", type: "user" },
    ];
    const res = await post(e, `${UM}/removeUsersUserGroups`, payload);
    expect(res.status).toBe(200);
    expect(groupsOf(e)).toEqual({ ann: ["eng"], bob: ["eng"] });
    expect(e.state().groups.map((g) => g.id)).toEqual(["all", "eng"]);
  });

  it("a group whose child groups stay: 409, nothing deleted; with its children it goes", async () => {
    const e = await start();
    const res = await post(e, `${UM}/removeUsersUserGroups`, [
      { id: "all", type: "userGroup" },
      { id: "ann", type: "user" },
    ]);
    expect(res.status).toBe(409);
    expect(res.json.detail).toBe("userGroup all still has child group(s) eng; nothing was deleted");
    expect(e.state().mappings).toHaveLength(3);
    const both = await post(e, `${UM}/removeUsersUserGroups`, [
      { id: "all", type: "userGroup" },
      { id: "eng", type: "userGroup" },
    ]);
    expect(both.status).toBe(200);
    expect(e.state().groups.map((g) => g.id)).toEqual(["ops"]);
    expect(groupsOf(e)).toEqual({ ann: [], bob: ["ops"], cy: [] });
  });
});

describe("a service without these endpoints, and the other profile", () => {
  it.each([404, 405] as const)("userManagement: %i answers it on every one of them", async (status) => {
    const e = await start({ userManagement: status });
    for (const [method, path, payload] of [
      ["POST", add("ops"), body("ann")],
      ["POST", remove("ops"), body("ann")],
      ["GET", members("ops"), undefined],
      ["POST", `${UM}/removeUsersUserGroups`, [{ id: "cy", type: "user" }]],
    ] as const) {
      expect(requestBodyProblems(method, path, payload)).toEqual([]);
      const res = await call(
        e,
        method,
        path,
        payload === undefined ? {} : { body: payload, contentType: "application/json" },
      );
      expect({ path, status: res.status }).toEqual({ path, status });
      expect(res.json.status).toBe(status);
    }
    expect(groupsOf(e)["ann"]).toEqual(["eng"]);
  });

  it("an emulator serving profile legacy only has no such paths (404)", async () => {
    const e = await start({ profile: "legacy" });
    expect((await post(e, add("ops"), body("ann"))).status).toBe(404);
  });
});

describe("the same fault injection as every other path", () => {
  it("a lost answer: the change is carried out, the socket closes without an answer", async () => {
    const e = await start({ faults: { loseAnswer: 1 } });
    await expect(post(e, add("ops"), body("cy"))).rejects.toThrow();
    expect(groupsOf(e)["cy"]).toEqual(["ops"]);
    expect(e.requestLog()).toEqual([expect.objectContaining({ method: "POST", status: 204, fault: "lose" })]);
    // Reads are never lost: the members read settles it.
    expect((await call(e, "GET", members("ops"))).json.members.map((m: { id: string }) => m.id)).toEqual([
      "bob",
      "cy",
    ]);
  });

  it("500 and 429 change nothing; the rate limit sends its headers and 429s over the limit", async () => {
    const e = await start({ faults: { error500: 1 } });
    expect((await post(e, add("ops"), body("cy"))).status).toBe(500);
    e.setFaults({ throttle429: 1, retryAfterSeconds: 3 });
    const throttled = await post(e, add("ops"), body("cy"));
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("retry-after")).toBe("3");
    expect(groupsOf(e)["cy"]).toEqual([]);
    e.setFaults({ rateLimit: { limit: 1, windowSeconds: 60 } });
    const first = await post(e, add("ops"), body("cy"));
    expect(first.status).toBe(204);
    expect(first.headers.get("x-ratelimit-remaining")).toBe("0");
    expect((await call(e, "GET", members("ops"))).status).toBe(429);
    expect(e.counters().faults).toEqual({ "500": 1, "429": 1, rateLimit: 1 });
  });
});
