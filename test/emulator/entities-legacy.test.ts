import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator/index.js";
import { call } from "./http.js";

const USERS = "/api/entities/users";
const GROUPS = "/api/entities/userGroups";
const legacyUser = (id: string, authenticationId: string, group?: string | null) => ({
  id,
  type: "user",
  attributes: { authenticationId },
  ...(group !== undefined
    ? { relationships: { userGroup: { data: group === null ? null : { id: group, type: "userGroup" } } } }
    : {}),
});

let emu: EmulatorHandle;
beforeEach(async () => {
  emu = await startEmulator({
    mapTokenOwners: false,
    seed: {
      groups: [{ id: "b-team" }, { id: "a-team", name: "A" }],
      mappings: [{ id: "multi", authenticationId: "sub-m", firstname: "Mo", groups: ["b-team", "a-team"] }],
    },
  });
});
afterEach(() => emu.close());

describe("legacy entity API", () => {
  it("POST takes {data} with a to-one userGroup (absent, null or set)", async () => {
    expect(
      (await call(emu, "POST", USERS, { body: { data: legacyUser("u1", "s1", "a-team") } })).status,
    ).toBe(201);
    expect((await call(emu, "POST", USERS, { body: { data: legacyUser("u2", "s2", null) } })).status).toBe(
      201,
    );
    const res = await call(emu, "POST", USERS, { body: { data: legacyUser("u3", "s3") } });
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({
      id: "u3",
      type: "user",
      relationships: { userGroup: { data: null } },
    });
    expect(emu.state().mappings.filter((m) => m.id.startsWith("u"))).toEqual([
      { id: "u1", authenticationId: "s1", groups: ["a-team"] },
      { id: "u2", authenticationId: "s2", groups: [] },
      { id: "u3", authenticationId: "s3", groups: [] },
    ]);
  });

  it("rejects v1-only attributes, a to-many userGroups and an unknown group", async () => {
    const v1Attr = await call(emu, "POST", USERS, {
      body: { data: { id: "x", type: "user", attributes: { firstname: "X" } } },
    });
    expect(v1Attr.status).toBe(400);
    const toMany = await call(emu, "POST", USERS, {
      body: { data: { id: "x", type: "user", relationships: { userGroups: { data: [] } } } },
    });
    expect(toMany.status).toBe(400);
    const unknown = await call(emu, "POST", USERS, { body: { data: legacyUser("x", "s", "nope") } });
    expect(unknown.status).toBe(400);
    expect(unknown.json.detail).toContain("nope");
  });

  it("PUT takes the bare resource object and replaces authenticationId and group, keeping v1-only attributes", async () => {
    const res = await call(emu, "PUT", `${USERS}/multi`, { body: legacyUser("multi", "sub-new", "b-team") });
    expect(res.status).toBe(200);
    expect(emu.state().mappings).toEqual([
      { id: "multi", authenticationId: "sub-new", firstname: "Mo", groups: ["b-team"] },
    ]);
    const wrapped = await call(emu, "PUT", `${USERS}/multi`, {
      body: { data: legacyUser("multi", "sub-x") },
    });
    expect(wrapped.status).toBe(400);
    const noGroup = await call(emu, "PUT", `${USERS}/multi`, { body: legacyUser("multi", "sub-new") });
    expect(noGroup.status).toBe(200);
    expect(emu.state().mappings[0]?.groups).toEqual([]);
  });

  it("serves a user with several groups with the first group id in sort order", async () => {
    const res = await call(emu, "GET", `${USERS}/multi?include=userGroup`);
    expect(res.status).toBe(200);
    expect(res.json.data.relationships).toEqual({ userGroup: { data: { id: "a-team", type: "userGroup" } } });
    expect(res.json.data.attributes).toEqual({ authenticationId: "sub-m" });
    expect(res.json.included).toEqual([
      {
        id: "a-team",
        type: "userGroup",
        attributes: { name: "A" },
        links: { self: `${emu.url}${GROUPS}/a-team` },
      },
    ]);
  });

  it("lists with the v1 paging and legacy documents", async () => {
    const res = await call(emu, "GET", `${USERS}?metaInclude=page&size=10`);
    expect(res.status).toBe(200);
    expect(res.json.data.map((u: { id: string }) => u.id)).toEqual(["multi"]);
    expect(res.json.meta.page).toEqual({ number: 0, size: 10, totalElements: 1, totalPages: 1 });
    expect(res.json.links.next).toContain("page=1");
  });

  it("user groups carry a name only; PUT is bare and keeps the v1 parents; no PATCH", async () => {
    await call(emu, "PATCH", `/api/v1/entities/userGroups/b-team`, {
      body: {
        data: {
          id: "b-team",
          type: "userGroup",
          relationships: { parents: { data: [{ id: "a-team", type: "userGroup" }] } },
        },
      },
    });
    const put = await call(emu, "PUT", `${GROUPS}/b-team`, {
      body: { id: "b-team", type: "userGroup", attributes: { name: "B" } },
    });
    expect(put.status).toBe(200);
    expect(put.json.data).toEqual({
      id: "b-team",
      type: "userGroup",
      attributes: { name: "B" },
      links: { self: `${emu.url}${GROUPS}/b-team` },
    });
    expect(emu.state().groups.find((g) => g.id === "b-team")).toEqual({
      id: "b-team",
      name: "B",
      parents: ["a-team"],
    });
    const parents = await call(emu, "POST", GROUPS, {
      body: { data: { id: "c", type: "userGroup", relationships: { parents: { data: [] } } } },
    });
    expect(parents.status).toBe(400);
    expect(
      (await call(emu, "PATCH", `${GROUPS}/b-team`, { body: { data: { id: "b-team", type: "userGroup" } } }))
        .status,
    ).toBe(405);
  });

  it("deletes users (204) and refuses a group in use (409)", async () => {
    expect((await call(emu, "DELETE", `${GROUPS}/a-team`)).status).toBe(409);
    expect((await call(emu, "DELETE", `${USERS}/multi`)).status).toBe(204);
    expect((await call(emu, "DELETE", `${GROUPS}/a-team`)).status).toBe(204);
    expect(emu.state().mappings).toEqual([]);
  });
});
