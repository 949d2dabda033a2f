/**
 * The client's bulk membership calls against the emulator over a real socket: what it sends
 * (checked against the official OpenAPI), what 404 and 405 become, and retries counted exactly
 * (the member changes are idempotent, so a lost answer or a 503 is sent again like a PUT).
 */
import { describe, expect, it } from "vitest";
import { NetworkError, type HttpError } from "../../src/errors.js";
import type { EmulatorOptions, EmulatorSeed } from "../../src/emulator/types.js";
import { requestBodyProblems } from "../helpers/openapi.js";
import { withEmulatorClient } from "../helpers/env.js";

const RETRIES = 2;
const seed: EmulatorSeed = {
  groups: [{ id: "eng" }, { id: "ops" }],
  mappings: [
    { id: "ann", groups: ["eng"] },
    { id: "bob", groups: [] },
  ],
};

async function env(emulator: EmulatorOptions = {}, profile: "v1" | "legacy" = "v1") {
  return withEmulatorClient({ emulator: { seed, ...emulator }, client: { profile, retries: RETRIES } });
}

describe("changeGroupMembers and getGroupMembers", () => {
  it("add, remove, read back: one request each, every body valid against the official spec", async () => {
    const e = await env();
    try {
      const { client, emulator } = e;
      emulator.resetLog();
      expect(await client.changeGroupMembers({ groupId: "ops", op: "add", userIds: ["ann", "bob"] })).toBe(
        "done",
      );
      expect(await client.changeGroupMembers({ groupId: "eng", op: "remove", userIds: ["ann"] })).toBe(
        "done",
      );
      expect(await client.getGroupMembers("ops")).toEqual({ status: "read", members: ["ann", "bob"] });
      expect(await client.getGroupMembers("eng")).toEqual({ status: "read", members: [] });
      const log = emulator.requestLog();
      expect(log.map((r) => `${r.method} ${r.url} ${r.status}`)).toEqual([
        "POST /api/v1/actions/userManagement/userGroups/ops/addMembers 204",
        "POST /api/v1/actions/userManagement/userGroups/eng/removeMembers 204",
        "GET /api/v1/actions/userManagement/userGroups/ops/members 200",
        "GET /api/v1/actions/userManagement/userGroups/eng/members 200",
      ]);
      for (const r of log) expect(requestBodyProblems(r.method, r.url, r.body)).toEqual([]);
      expect(log[0]?.body).toEqual({ members: [{ id: "ann" }, { id: "bob" }] });
    } finally {
      await e.close();
    }
  });

  it("404 is returned as notFound, 405 as unavailable; legacy sends nothing", async () => {
    const e = await env();
    try {
      expect(await e.client.changeGroupMembers({ groupId: "nope", op: "add", userIds: ["ann"] })).toBe(
        "notFound",
      );
      expect(await e.client.getGroupMembers("nope")).toEqual({ status: "notFound" });
    } finally {
      await e.close();
    }
    const without = await env({ userManagement: 405 });
    try {
      expect(await without.client.changeGroupMembers({ groupId: "ops", op: "add", userIds: ["ann"] })).toBe(
        "unavailable",
      );
      expect(await without.client.getGroupMembers("ops")).toEqual({ status: "unavailable" });
    } finally {
      await without.close();
    }
    const legacy = await env({}, "legacy");
    try {
      legacy.emulator.resetLog();
      expect(await legacy.client.changeGroupMembers({ groupId: "ops", op: "add", userIds: ["ann"] })).toBe(
        "unavailable",
      );
      expect(await legacy.client.getGroupMembers("ops")).toEqual({ status: "unavailable" });
      expect(legacy.emulator.requestLog()).toEqual([]);
    } finally {
      await legacy.close();
    }
  });

  it("a lost answer is sent again (idempotent): 1 + retries attempts, the change landed once", async () => {
    const e = await env();
    try {
      e.emulator.setFaults({ loseAnswer: 1 });
      e.emulator.resetLog();
      const err = await e.client
        .changeGroupMembers({ groupId: "ops", op: "add", userIds: ["ann"] })
        .catch((x: unknown) => x);
      expect(err).toBeInstanceOf(NetworkError);
      expect(e.emulator.requestLog().map((r) => r.fault)).toEqual(["lose", "lose", "lose"]);
      e.emulator.setFaults({});
      expect(await e.client.getGroupMembers("ops")).toEqual({ status: "read", members: ["ann"] });
      expect(e.emulator.state().mappings.find((m) => m.id === "ann")?.groups).toEqual(["eng", "ops"]);
    } finally {
      await e.close();
    }
  });

  it("a 503 is retried; a 400 is not", async () => {
    const e = await env();
    try {
      e.emulator.setFaults({ error503: 1 });
      e.emulator.resetLog();
      const err = await e.client
        .changeGroupMembers({ groupId: "ops", op: "remove", userIds: ["ann"] })
        .catch((x: unknown) => x);
      expect((err as HttpError).status).toBe(503);
      expect(e.emulator.requestLog()).toHaveLength(RETRIES + 1);
      e.emulator.setFaults({});
      e.emulator.resetLog();
      const bad = await e.client
        .changeGroupMembers({ groupId: "ops", op: "add", userIds: [""] })
        .catch((x: unknown) => x);
      expect((bad as HttpError).status).toBe(400);
      expect(e.emulator.requestLog()).toHaveLength(1);
    } finally {
      await e.close();
    }
  });
});
