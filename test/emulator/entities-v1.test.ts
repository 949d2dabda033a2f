import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator/index.js";
import { validateAgainst } from "../helpers/openapi.js";
import { call, groupDoc, userDoc } from "./http.js";

const USERS = "/api/v1/entities/users";
const GROUPS = "/api/v1/entities/userGroups";

let emu: EmulatorHandle;
beforeEach(async () => {
  emu = await startEmulator({
    mapTokenOwners: false,
    seed: {
      groups: [
        { id: "all", name: "Everyone" },
        { id: "eng", name: "Engineering", parents: ["all"] },
        { id: "ops" },
      ],
      mappings: [
        {
          id: "ann",
          authenticationId: "sub-ann",
          firstname: "Ann",
          lastname: "Lee",
          email: "ann@example.com",
          groups: ["eng"],
        },
      ],
    },
  });
});
afterEach(() => emu.close());

describe("v1 users", () => {
  it("creates a user (201) whose document matches JsonApiUserOutDocument", async () => {
    const res = await call(emu, "POST", USERS, {
      body: userDoc("bob", { authenticationId: "sub-bob", firstname: "Bob" }, ["eng", "ops"]),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toBe("application/vnd.gooddata.api+json");
    expect(validateAgainst("metadata", "JsonApiUserOutDocument", res.json)).toEqual([]);
    expect(res.json.data).toMatchObject({
      id: "bob",
      type: "user",
      attributes: { authenticationId: "sub-bob", firstname: "Bob" },
      relationships: {
        userGroups: {
          data: [
            { id: "eng", type: "userGroup" },
            { id: "ops", type: "userGroup" },
          ],
        },
      },
      links: { self: `${emu.url}${USERS}/bob` },
    });
    expect(emu.state().mappings.find((m) => m.id === "bob")).toEqual({
      id: "bob",
      authenticationId: "sub-bob",
      firstname: "Bob",
      groups: ["eng", "ops"],
    });
  });

  it("gets one user, with included groups on request", async () => {
    const res = await call(emu, "GET", `${USERS}/ann?include=userGroups`);
    expect(res.status).toBe(200);
    expect(validateAgainst("metadata", "JsonApiUserOutDocument", res.json)).toEqual([]);
    expect(res.json.included).toEqual([
      expect.objectContaining({ id: "eng", type: "userGroup", attributes: { name: "Engineering" } }),
    ]);
    expect((await call(emu, "GET", `${USERS}/nobody`)).status).toBe(404);
  });

  it("answers 409 on a duplicate id and 404 on a missing one", async () => {
    const dup = await call(emu, "POST", USERS, { body: userDoc("ann") });
    expect(dup.status).toBe(409);
    expect(dup.json).toMatchObject({ status: 409, detail: expect.stringContaining("ann") });
    expect((await call(emu, "PUT", `${USERS}/zed`, { body: userDoc("zed") })).status).toBe(404);
    expect((await call(emu, "PATCH", `${USERS}/zed`, { body: userDoc("zed") })).status).toBe(404);
    expect((await call(emu, "DELETE", `${USERS}/zed`)).status).toBe(404);
  });

  it("PUT replaces the whole resource: attributes and relationships left out are cleared", async () => {
    const res = await call(emu, "PUT", `${USERS}/ann`, {
      body: userDoc("ann", { authenticationId: "sub-ann2" }),
    });
    expect(res.status).toBe(200);
    expect(validateAgainst("metadata", "JsonApiUserOutDocument", res.json)).toEqual([]);
    expect(emu.state().mappings).toEqual([{ id: "ann", authenticationId: "sub-ann2", groups: [] }]);
  });

  it("PATCH changes only what it is sent", async () => {
    const res = await call(emu, "PATCH", `${USERS}/ann`, { body: userDoc("ann", { firstname: "Anne" }) });
    expect(res.status).toBe(200);
    expect(emu.state().mappings).toEqual([
      {
        id: "ann",
        authenticationId: "sub-ann",
        firstname: "Anne",
        lastname: "Lee",
        email: "ann@example.com",
        groups: ["eng"],
      },
    ]);
    await call(emu, "PATCH", `${USERS}/ann`, { body: userDoc("ann", {}, ["ops"]) });
    expect(emu.state().mappings[0]?.groups).toEqual(["ops"]);
  });

  it("checks include before a write, so a bad include stores nothing", async () => {
    const res = await call(emu, "POST", `${USERS}?include=parents`, { body: userDoc("x") });
    expect(res.status).toBe(400);
    expect(res.json.detail).toContain("include=parents");
    expect(emu.state().mappings.map((m) => m.id)).toEqual(["ann"]);
  });

  it("refuses a body id that differs from the path id", async () => {
    const res = await call(emu, "PUT", `${USERS}/ann`, { body: userDoc("bob") });
    expect(res.status).toBe(400);
    expect(res.json.detail).toContain("differs");
  });

  it("rejects what the official request schema rejects (400), naming the member", async () => {
    const bad: Array<[string, unknown]> = [
      ["wrong type constant", { data: { id: "x", type: "userGroup" } }],
      ["id with a leading dot", { data: { id: ".x", type: "user" } }],
      ["256-char attribute", { data: { id: "x", type: "user", attributes: { firstname: "a".repeat(256) } } }],
      ["non-string attribute", { data: { id: "x", type: "user", attributes: { email: 5 } } }],
      ["missing data", { id: "x", type: "user" }],
      [
        "linkage without type",
        { data: { id: "x", type: "user", relationships: { userGroups: { data: [{ id: "eng" }] } } } },
      ],
    ];
    for (const [why, body] of bad) {
      expect(validateAgainst("metadata", "JsonApiUserInDocument", body), why).not.toEqual([]);
      const res = await call(emu, "POST", USERS, { body });
      expect(res.status, why).toBe(400);
      expect(res.headers.get("content-type"), why).toBe("application/problem+json");
    }
    const unknownAttr = await call(emu, "POST", USERS, { body: userDoc("x", { nickname: "X" }) });
    expect(unknownAttr.status).toBe(400);
    expect(unknownAttr.json.detail).toContain("data.attributes.nickname");
    const unknownRel = await call(emu, "POST", USERS, {
      body: { data: { id: "x", type: "user", relationships: { userGroup: { data: null } } } },
    });
    expect(unknownRel.status).toBe(400);
    expect(emu.state().mappings.map((m) => m.id)).toEqual(["ann"]);
  });

  it("answers 400 naming the id for a relationship to an unknown group", async () => {
    const res = await call(emu, "POST", USERS, { body: userDoc("x", {}, ["eng", "ghosts"]) });
    expect(res.status).toBe(400);
    expect(res.json.detail).toContain("ghosts");
    expect(emu.state().mappings).toHaveLength(1);
  });

  it("answers 415 for application/json and accepts a charset parameter", async () => {
    const json = await call(emu, "POST", USERS, { body: userDoc("x"), contentType: "application/json" });
    expect(json.status).toBe(415);
    expect(json.json.status).toBe(415);
    const charset = await call(emu, "POST", USERS, {
      body: userDoc("x"),
      contentType: "application/vnd.gooddata.api+json; charset=UTF-8",
    });
    expect(charset.status).toBe(201);
  });

  it("DELETE answers 204 with no body", async () => {
    const res = await call(emu, "DELETE", `${USERS}/ann`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(emu.state().mappings).toEqual([]);
  });
});

describe("v1 user groups", () => {
  it("creates, reads and lists groups per the official schemas", async () => {
    const res = await call(emu, "POST", GROUPS, { body: groupDoc("data", "Data", ["eng"]) });
    expect(res.status).toBe(201);
    expect(validateAgainst("metadata", "JsonApiUserGroupOutDocument", res.json)).toEqual([]);
    const one = await call(emu, "GET", `${GROUPS}/data?include=parents`);
    expect(one.json.data.relationships.parents.data).toEqual([{ id: "eng", type: "userGroup" }]);
    expect(one.json.included.map((g: { id: string }) => g.id)).toEqual(["eng"]);
    const list = await call(emu, "GET", `${GROUPS}?include=parents&metaInclude=page`);
    expect(validateAgainst("metadata", "JsonApiUserGroupOutList", list.json)).toEqual([]);
    expect(list.json.data.map((g: { id: string }) => g.id)).toEqual(["all", "data", "eng", "ops"]);
    expect(list.json.included.map((g: { id: string }) => g.id).sort()).toEqual(["all", "eng"]);
  });

  it("includes the parents by type too (include=userGroups, as the official spec allows)", async () => {
    await call(emu, "POST", GROUPS, { body: groupDoc("data", "Data", ["eng"]) });
    const one = await call(emu, "GET", `${GROUPS}/data?include=userGroups`);
    expect(one.status).toBe(200);
    expect(one.json.included.map((g: { id: string }) => g.id)).toEqual(["eng"]);
    const list = await call(emu, "GET", `${GROUPS}?include=userGroups`);
    expect(list.json.included.map((g: { id: string }) => g.id).sort()).toEqual(["all", "eng"]);
    const bad = await call(emu, "GET", `${GROUPS}?include=users`);
    expect(bad.status).toBe(400);
    expect(bad.json.detail).toBe("include=users: supported are parents, userGroups, ALL");
  });

  it("PUT clears the name and parents left out; PATCH keeps them", async () => {
    await call(emu, "PATCH", `${GROUPS}/eng`, { body: groupDoc("eng", "Eng") });
    expect(emu.state().groups.find((g) => g.id === "eng")).toEqual({
      id: "eng",
      name: "Eng",
      parents: ["all"],
    });
    await call(emu, "PUT", `${GROUPS}/eng`, { body: groupDoc("eng") });
    expect(emu.state().groups.find((g) => g.id === "eng")).toEqual({ id: "eng", parents: [] });
  });

  it("refuses a parent cycle, a self-parent and unknown parents (400)", async () => {
    const cycle = await call(emu, "PATCH", `${GROUPS}/all`, { body: groupDoc("all", undefined, ["eng"]) });
    expect(cycle.status).toBe(400);
    expect(cycle.json.detail).toContain("cycle");
    expect(
      (await call(emu, "PATCH", `${GROUPS}/ops`, { body: groupDoc("ops", undefined, ["ops"]) })).status,
    ).toBe(400);
    const unknown = await call(emu, "POST", GROUPS, { body: groupDoc("new", "New", ["nope"]) });
    expect(unknown.status).toBe(400);
    expect(unknown.json.detail).toContain("nope");
    expect(emu.state().groups.find((g) => g.id === "all")?.parents).toEqual([]);
  });

  it("refuses (409) to delete a group that still has members or children; deletes it once empty", async () => {
    const withMember = await call(emu, "DELETE", `${GROUPS}/eng`);
    expect(withMember.status).toBe(409);
    expect(withMember.json.detail).toContain("1 member");
    const withChild = await call(emu, "DELETE", `${GROUPS}/all`);
    expect(withChild.status).toBe(409);
    expect(withChild.json.detail).toContain("1 child");
    await call(emu, "PATCH", `${USERS}/ann`, { body: userDoc("ann", {}, []) });
    expect((await call(emu, "DELETE", `${GROUPS}/eng`)).status).toBe(204);
    expect((await call(emu, "DELETE", `${GROUPS}/all`)).status).toBe(204);
    expect(emu.state().groups.map((g) => g.id)).toEqual(["ops"]);
  });

  it("rejects unknown group attributes and a 256-char name", async () => {
    expect(
      (
        await call(emu, "POST", GROUPS, {
          body: { data: { id: "x", type: "userGroup", attributes: { title: "X" } } },
        })
      ).status,
    ).toBe(400);
    const long = { data: { id: "x", type: "userGroup", attributes: { name: "n".repeat(256) } } };
    expect(validateAgainst("metadata", "JsonApiUserGroupInDocument", long)).not.toEqual([]);
    expect((await call(emu, "POST", GROUPS, { body: long })).status).toBe(400);
  });
});
