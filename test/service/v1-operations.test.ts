/**
 * Every request the v1 client makes (listing, reading, creating, updating and deleting each kind
 * of object, and the caller's profile) is an operation of the official OpenAPI description, with
 * declared query parameters and allowed values: what the emulator accepts, the real service does.
 */
import { describe, expect, it } from "vitest";
import { operationProblems, pathOf } from "../helpers/openapi.js";
import { withEmulatorClient } from "../helpers/env.js";

describe("v1 request URLs", () => {
  it("are operations of the official spec with valid query parameters", async () => {
    const env = await withEmulatorClient({ client: { profile: "v1", pageSize: 2 } });
    try {
      const c = env.client;
      await c.getProfile();
      await c.createGroup({ id: "root", name: "Root", parents: [] });
      await c.createGroup({ id: "child", parents: ["root"] });
      await c.updateGroup({ id: "child", name: "Child", parents: [] });
      const created = await c.createIdpUser({ email: "jane@example.com", displayName: "Jane" });
      const auth = created.status === "created" ? created.value.authenticationId : "x";
      await c.updateIdpUser({ email: "jane@example.com", displayName: "Jane D." });
      await c.createMapping({ id: "jane", authenticationId: auth, groups: ["child"] });
      await c.updateMapping({ id: "jane", authenticationId: auth, groups: ["root"] });
      await c.listIdpUsers();
      await c.listMappings();
      await c.listGroups();
      await c.getIdpUser("jane@example.com");
      await c.getMapping("jane");
      await c.getGroup("child");
      await c.deleteMapping("jane");
      await c.deleteIdpUser("jane@example.com");
      await c.deleteGroup("child");

      const log = env.emulator.requestLog();
      // Every operation the client uses, so a call that stopped reaching the log would be noticed.
      const operations = new Set(
        log.map((e) => `${e.method} ${pathOf(new URL(e.url, "http://x").pathname)?.template}`),
      );
      expect([...operations].sort()).toEqual([
        "DELETE /api/v1/auth/users/{userEmail}",
        "DELETE /api/v1/entities/userGroups/{id}",
        "DELETE /api/v1/entities/users/{id}",
        "GET /api/v1/auth/users",
        "GET /api/v1/auth/users/{userEmail}",
        "GET /api/v1/entities/userGroups",
        "GET /api/v1/entities/userGroups/{id}",
        "GET /api/v1/entities/users",
        "GET /api/v1/entities/users/{id}",
        "GET /api/v1/profile",
        "POST /api/v1/auth/users",
        "POST /api/v1/entities/userGroups",
        "POST /api/v1/entities/users",
        "PUT /api/v1/auth/users/{userEmail}",
        "PUT /api/v1/entities/userGroups/{id}",
        "PUT /api/v1/entities/users/{id}",
      ]);
      // Single reads ask for the related groups, as listings do (relationships are optional).
      const urls = log.map((e) => `${e.method} ${e.url}`);
      expect(urls).toContain("GET /api/v1/entities/users/jane?include=userGroups");
      expect(urls).toContain("GET /api/v1/entities/userGroups/child?include=parents");
      const problems = log.flatMap((e) => operationProblems(e.method, e.url));
      expect(problems).toEqual([]);
    } finally {
      await env.close();
    }
  });

  it("the checker itself flags an unknown include value and an undeclared parameter", () => {
    expect(operationProblems("GET", "/api/v1/entities/userGroups?include=members&page=0")).toEqual([
      "GET /api/v1/entities/userGroups: include=members is not one of userGroups, parents, ALL",
    ]);
    expect(operationProblems("GET", "/api/v1/entities/users?foo=1")).toEqual([
      "GET /api/v1/entities/users: query parameter foo is not declared",
    ]);
    expect(operationProblems("PATCH", "/api/v1/auth/users/a@b.c")).toEqual([
      "PATCH /api/v1/auth/users/{userEmail}: no such operation in the auth spec",
    ]);
  });
});
