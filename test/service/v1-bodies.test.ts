/**
 * Every request body the v1 profile sends, as the emulator received it, validates against the
 * official OpenAPI request schemas (ajv), and carries the media type of its endpoint.
 */
import { describe, expect, it } from "vitest";
import { validateAgainst } from "../helpers/openapi.js";
import { withEmulatorClient } from "../helpers/env.js";

function schemaFor(method: string, url: string): ["auth" | "metadata", string] {
  if (url.startsWith("/api/v1/auth/users")) return ["auth", "AuthUser"];
  if (url.startsWith("/api/v1/entities/users")) return ["metadata", "JsonApiUserInDocument"];
  if (url.startsWith("/api/v1/entities/userGroups")) return ["metadata", "JsonApiUserGroupInDocument"];
  throw new Error(`no schema known for ${method} ${url}`);
}

describe("v1 request bodies", () => {
  it("validate against the official schemas", async () => {
    const env = await withEmulatorClient({ client: { profile: "v1" } });
    try {
      const c = env.client;
      await c.createGroup({ id: "root", name: "Root", parents: [] });
      await c.createGroup({ id: "child", parents: ["root"] });
      await c.updateGroup({ id: "child", name: "Child", parents: [] });
      const created = await c.createIdpUser({
        email: "jane+x@example.com",
        displayName: "Jane",
        password: "Pw-123456",
      });
      await c.createIdpUser({ email: "nopw@example.com", displayName: "No Password" });
      await c.updateIdpUser({ email: "jane+x@example.com", displayName: "Jane D." });
      const authId = created.status === "created" ? created.value.authenticationId : "x";
      await c.createMapping({
        id: "jane",
        authenticationId: authId,
        firstname: "Jane",
        lastname: "Doe",
        email: "jane+x@example.com",
        groups: ["child", "root"],
      });
      await c.createMapping({ id: "bare", groups: [] });
      const updated = await c.updateMapping({
        id: "jane",
        authenticationId: authId,
        lastname: "Roe",
        groups: ["root"],
      });
      // PUT replaces: what was left out (firstname, email, group child) is gone.
      expect(updated).toEqual({ id: "jane", authenticationId: authId, lastname: "Roe", groups: ["root"] });
      expect(await c.getMapping("jane")).toEqual(updated);

      const writes = env.emulator.requestLog().filter((e) => e.method === "POST" || e.method === "PUT");
      expect(writes).toHaveLength(9);
      for (const w of writes) {
        expect(w.status, `${w.method} ${w.url}`).toBeLessThan(300);
        const [spec, schema] = schemaFor(w.method, w.url);
        expect(validateAgainst(spec, schema, w.body), `${w.method} ${w.url}`).toEqual([]);
      }
    } finally {
      await env.close();
    }
  });
});
