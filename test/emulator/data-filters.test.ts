/**
 * User data filters over a real socket: the emulator's answers validate against the official
 * `JsonApiUserDataFilter*` schemas, what the client sends against the operations' request schemas;
 * a child workspace inherits its parents' filters (origin PARENT) and the client reads only a
 * workspace's own; broken answers are refused, and a lost answer is settled by reading back.
 */
import { describe, expect, it } from "vitest";
import { managedFilterId } from "../../src/data-filters.js";
import { AnswerError } from "../../src/errors.js";
import type { EmulatorSeed } from "../../src/emulator/types.js";
import { runDataFilterStep } from "../../src/apply/run-filters.js";
import { TEST_TOKEN, withEmulatorClient } from "../helpers/env.js";
import { requestBodyProblems, validateAgainst } from "../helpers/openapi.js";
import { call as rawCall, type CallOptions } from "./http.js";

const call = (emu: { url: string }, method: string, path: string, opts: CallOptions = {}) =>
  rawCall(emu, method, path, { token: TEST_TOKEN, ...opts });

const seed: EmulatorSeed = {
  groups: [{ id: "sales" }],
  mappings: [{ id: "jane", groups: ["sales"] }],
  workspaces: [{ id: "root" }, { id: "emea", parent: "root" }],
  dataFilters: [{ workspace: "root", id: "hand", maql: '{label/region} = "X"', userGroup: "sales" }],
};

describe("userDataFilters", () => {
  it("answers per the official schemas, inherits down the hierarchy and checks what is written", async () => {
    const env = await withEmulatorClient({ emulator: { seed }, client: { pageSize: 1 } });
    try {
      const emu = env.emulator;
      const list = await call(
        emu,
        "GET",
        "/api/v1/entities/workspaces/emea/userDataFilters?include=user,userGroup&metaInclude=origin,page",
      );
      expect(list.status).toBe(200);
      expect(validateAgainst("metadata", "JsonApiUserDataFilterOutList", list.json)).toEqual([]);
      expect(list.json.data[0].meta.origin).toEqual({ originType: "PARENT", originId: "root" });
      expect(list.json.included.map((r: { id: string }) => r.id)).toEqual(["sales"]);
      const id = managedFilterId("emea", { type: "user", id: "jane" });
      const made = await env.client.dataFilters!.create({
        id,
        workspace: "emea",
        assignee: { type: "user", id: "jane" },
        maql: '{label/region} = "EMEA"',
      });
      expect(made.status).toBe("created");
      const again = await env.client.dataFilters!.create({
        id,
        workspace: "emea",
        assignee: { type: "user", id: "jane" },
        maql: "x",
      });
      expect(again.status).toBe("exists");
      // The client reads only the workspace's own filters, however many pages.
      expect((await env.client.dataFilters!.list("emea")).map((f) => [f.id, f.managed])).toEqual([
        [id, true],
      ]);
      expect((await env.client.dataFilters!.list("root")).map((f) => [f.id, f.managed])).toEqual([
        ["hand", false],
      ]);
      const one = await call(emu, "GET", `/api/v1/entities/workspaces/emea/userDataFilters/${id}`);
      expect(validateAgainst("metadata", "JsonApiUserDataFilterOutDocument", one.json)).toEqual([]);
      await env.client.dataFilters!.replace({
        id,
        workspace: "emea",
        assignee: { type: "user", id: "jane" },
        maql: '{label/region} IN ("A", "B")',
      });
      expect(await env.client.dataFilters!.delete("emea", id)).toBe("deleted");
      expect(await env.client.dataFilters!.delete("emea", id)).toBe("notFound");
      for (const e of emu
        .requestLog()
        .filter((x) => x.url.includes("userDataFilters") && x.body !== undefined))
        expect(requestBodyProblems(e.method, e.url, e.body), e.url).toEqual([]);
      for (const e of emu.requestLog().filter((x) => x.method === "GET" && x.url.includes("userDataFilters")))
        expect(requestBodyProblems(e.method, e.url, undefined), e.url).toEqual([]);
      // Relationships are checked: an unknown user, two assignees, an id taken by a parent's filter.
      const doc = (rel: Record<string, unknown>, fid = "f1") => ({
        data: { id: fid, type: "userDataFilter", attributes: { maql: "x" }, relationships: rel },
      });
      const post = (body: unknown) =>
        call(emu, "POST", "/api/v1/entities/workspaces/emea/userDataFilters", { body });
      expect((await post(doc({ user: { data: { id: "nobody", type: "user" } } }))).status).toBe(404);
      expect(
        (
          await post(
            doc({
              user: { data: { id: "jane", type: "user" } },
              userGroup: { data: { id: "sales", type: "userGroup" } },
            }),
          )
        ).status,
      ).toBe(400);
      expect(
        (await post(doc({ userGroup: { data: { id: "sales", type: "userGroup" } } }, "hand"))).status,
      ).toBe(409);
      // The declarative layout, which replaces every filter of a workspace, is never served.
      expect(
        (await call(emu, "PUT", "/api/v1/layout/workspaces/emea/userDataFilters", { body: {} })).status,
      ).toBe(404);
    } finally {
      await env.close();
    }
  });

  it("a broken listing is refused, never read as no filters", async () => {
    const env = await withEmulatorClient({ emulator: { seed }, client: { retries: 1 } });
    try {
      env.emulator.setFaults({ brokenAnswers: [{ mode: "dataNull", pathPattern: /userDataFilters/ }] });
      await expect(env.client.dataFilters!.list("root")).rejects.toBeInstanceOf(AnswerError);
    } finally {
      await env.close();
    }
  });

  it("a lost answer to a replace or delete is settled by reading the filter back", async () => {
    const env = await withEmulatorClient({ emulator: { seed }, client: { retries: 0 } });
    try {
      const a = { type: "userGroup" as const, id: "sales" };
      const id = managedFilterId("emea", a);
      const base = {
        id: `updateDataFilter:emea/userGroup/sales`,
        target: "emea/userGroup/sales",
        workspace: "emea",
        assignee: a,
        filterId: id,
        dependsOn: [],
        reason: "",
        touches: [],
        status: "planned" as const,
      };
      const ctx = { client: env.client, callOptions: {} };
      expect(
        await runDataFilterStep(
          { ...base, kind: "createDataFilter", after: { maql: '{label/r} = "A"' } },
          ctx,
        ),
      ).toEqual({});
      env.emulator.setFaults({ loseAnswer: 1, pathPattern: /userDataFilters/ });
      const upd = await runDataFilterStep(
        {
          ...base,
          kind: "updateDataFilter",
          before: { maql: '{label/r} = "A"' },
          after: { maql: '{label/r} IN ("A", "B")' },
          widening: true,
        },
        ctx,
      );
      expect(upd).toEqual({ recovered: "readBack" });
      const del = await runDataFilterStep(
        { ...base, kind: "deleteDataFilter", before: { maql: "x" }, widening: true },
        ctx,
      );
      expect(del).toEqual({ recovered: "readBack" });
      expect(env.emulator.state().dataFilters?.map((f) => f.id)).toEqual(["hand"]);
    } finally {
      await env.close();
    }
  });
});
