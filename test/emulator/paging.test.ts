import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator/index.js";
import type { SeedMapping } from "../../src/emulator/types.js";
import { validateAgainst } from "../helpers/openapi.js";
import { call } from "./http.js";

const USERS = "/api/v1/entities/users";
const pad = (i: number) => String(i).padStart(3, "0");
const ids = (res: { json: { data: Array<{ id: string }> } }) => res.json.data.map((d) => d.id);

describe("paging of entity lists", () => {
  let emu: EmulatorHandle;
  beforeAll(async () => {
    // Seeded in reverse so that the served order must come from sorting, not from insertion.
    const mappings: SeedMapping[] = [];
    for (let i = 44; i >= 0; i--) {
      mappings.push({
        id: `u${pad(i)}`,
        authenticationId: `sub-${i % 40}`,
        groups: i % 2 === 0 ? ["even"] : ["odd", "all"],
      });
    }
    emu = await startEmulator({
      mapTokenOwners: false,
      seed: { groups: [{ id: "all" }, { id: "even" }, { id: "odd" }], mappings },
    });
  });
  afterAll(() => emu.close());

  it("serves 20 by default, zero-based pages, and totals in meta.page", async () => {
    const first = await call(emu, "GET", `${USERS}?metaInclude=page`);
    expect(validateAgainst("metadata", "JsonApiUserOutList", first.json)).toEqual([]);
    expect(ids(first)).toHaveLength(20);
    expect(ids(first)[0]).toBe("u000");
    expect(first.json.meta.page).toEqual({ number: 0, size: 20, totalElements: 45, totalPages: 3 });
    const last = await call(emu, "GET", `${USERS}?page=2&size=20&metaInclude=page&sort=id`);
    expect(ids(last)).toEqual(["u040", "u041", "u042", "u043", "u044"]);
    expect(last.json.meta.page).toEqual({ number: 2, size: 20, totalElements: 45, totalPages: 3 });
  });

  it("sends links.next even on the last page, and an empty page past the end", async () => {
    const last = await call(emu, "GET", `${USERS}?page=2&size=20`);
    expect(last.json.links.self).toBe(`${emu.url}${USERS}?page=2&size=20`);
    expect(last.json.links.next).toBe(`${emu.url}${USERS}?page=3&size=20`);
    const past = await call(emu, "GET", last.json.links.next.slice(emu.url.length));
    expect(past.status).toBe(200);
    expect(past.json.data).toEqual([]);
    expect(past.json.links.next).toContain("page=4");
  });

  it("walks every page exactly once in a stable order", async () => {
    const seen: string[] = [];
    for (let page = 0; ; page++) {
      const res = await call(emu, "GET", `${USERS}?page=${page}&size=7&sort=id`);
      seen.push(...ids(res));
      if (ids(res).length < 7) break;
    }
    expect(seen).toEqual(Array.from({ length: 45 }, (_, i) => `u${pad(i)}`));
  });

  it("sorts descending with -id and id,desc", async () => {
    for (const sort of ["-id", "id,desc"]) {
      const res = await call(emu, "GET", `${USERS}?size=3&sort=${encodeURIComponent(sort)}`);
      expect(ids(res)).toEqual(["u044", "u043", "u042"]);
    }
    const second = await call(emu, "GET", `${USERS}?size=3&page=1&sort=-id`);
    expect(ids(second)).toEqual(["u041", "u040", "u039"]);
  });

  it("includes each referenced group once", async () => {
    const res = await call(emu, "GET", `${USERS}?size=4&include=userGroups`);
    expect(validateAgainst("metadata", "JsonApiUserOutList", res.json)).toEqual([]);
    expect(res.json.included.map((g: { id: string }) => g.id).sort()).toEqual(["all", "even", "odd"]);
  });

  it("filters with minimal RSQL", async () => {
    const byAuth = await call(
      emu,
      "GET",
      `${USERS}?filter=${encodeURIComponent("authenticationId=='sub-3'")}&metaInclude=page`,
    );
    expect(ids(byAuth)).toEqual(["u003", "u043"]);
    expect(byAuth.json.meta.page.totalElements).toBe(2);
    const unquoted = await call(
      emu,
      "GET",
      `${USERS}?filter=${encodeURIComponent("authenticationId==sub-3;id=='u043'")}`,
    );
    expect(ids(unquoted)).toEqual(["u043"]);
    const byId = await call(emu, "GET", `${USERS}?filter=${encodeURIComponent('id=="u010"')}`);
    expect(ids(byId)).toEqual(["u010"]);
    const byGroup = await call(
      emu,
      "GET",
      `${USERS}?filter=${encodeURIComponent("userGroups.id=='odd'")}&size=100&sort=-id`,
    );
    expect(ids(byGroup)).toHaveLength(22);
    expect(ids(byGroup)[0]).toBe("u043");
    const none = await call(
      emu,
      "GET",
      `${USERS}?filter=${encodeURIComponent("id=='nobody'")}&metaInclude=page`,
    );
    expect(none.json.data).toEqual([]);
    expect(none.json.meta.page.totalPages).toBe(0);
  });

  it("answers 400 for bad paging parameters, naming them", async () => {
    for (const q of [
      "size=1001",
      "size=0",
      "page=-1",
      "size=abc",
      "sort=name",
      "include=parents",
      "filter=title=='x'",
      "filter=id!='x'",
    ]) {
      const res = await call(emu, "GET", `${USERS}?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.json.detail, q).toMatch(/size|page|sort|include|filter/);
    }
    expect((await call(emu, "GET", `${USERS}?size=1000`)).status).toBe(200);
  });
});

describe("a store of 100,000 mappings", () => {
  it("loads, pages from the end and filters without sorting the store per request", async () => {
    const mappings: SeedMapping[] = Array.from({ length: 100_000 }, (_, i) => ({
      id: `user-${(i * 7919) % 100_000}`,
      authenticationId: `sub-${i}`,
      groups: [],
    }));
    const emu = await startEmulator({ mapTokenOwners: false, seed: { mappings } });
    try {
      const res = await call(emu, "GET", `${USERS}?page=99&size=1000&metaInclude=page`);
      expect(res.json.data).toHaveLength(1000);
      expect(res.json.meta.page).toEqual({ number: 99, size: 1000, totalElements: 100_000, totalPages: 100 });
      const one = await call(
        emu,
        "GET",
        `${USERS}?filter=${encodeURIComponent("authenticationId=='sub-12345'")}`,
      );
      expect(ids(one)).toEqual([`user-${(12345 * 7919) % 100_000}`]);
      const created = await call(emu, "POST", USERS, { body: { data: { id: "user-0000", type: "user" } } });
      expect(created.status).toBe(201);
      const first = await call(emu, "GET", `${USERS}?size=2`);
      expect(ids(first)).toEqual(["user-0", "user-0000"]);
    } finally {
      await emu.close();
    }
  });
});
