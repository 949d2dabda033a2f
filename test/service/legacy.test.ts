/** Profile `legacy`: seed-contract paths and documents. */
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/errors.js";
import { withEmulatorClient } from "../helpers/env.js";

describe("legacy profile", () => {
  it("POSTs a data document with a to-one userGroup and PUTs the bare resource", async () => {
    const env = await withEmulatorClient({
      emulator: { profile: "legacy", seed: { groups: [{ id: "g1" }, { id: "g2" }] } },
      client: { profile: "legacy" },
    });
    try {
      const c = env.client;
      expect(await c.createMapping({ id: "jane", authenticationId: "a1", groups: ["g1"] })).toEqual({
        status: "created",
        value: { id: "jane", authenticationId: "a1", groups: ["g1"] },
      });
      await c.createMapping({ id: "nogroup", authenticationId: "a2", groups: [] });
      expect(await c.updateMapping({ id: "jane", authenticationId: "a1", groups: ["g2"] })).toEqual({
        id: "jane",
        authenticationId: "a1",
        groups: ["g2"],
      });
      const bodies = env.emulator
        .requestLog()
        .filter((e) => e.method !== "GET")
        .map((e) => [e.method, e.url, e.body]);
      expect(bodies).toEqual([
        [
          "POST",
          "/api/entities/users",
          {
            data: {
              id: "jane",
              type: "user",
              attributes: { authenticationId: "a1" },
              relationships: { userGroup: { data: { id: "g1", type: "userGroup" } } },
            },
          },
        ],
        [
          "POST",
          "/api/entities/users",
          { data: { id: "nogroup", type: "user", attributes: { authenticationId: "a2" } } },
        ],
        [
          "PUT",
          "/api/entities/users/jane",
          {
            id: "jane",
            type: "user",
            attributes: { authenticationId: "a1" },
            relationships: { userGroup: { data: { id: "g2", type: "userGroup" } } },
          },
        ],
      ]);
      expect(await c.listMappings()).toEqual([
        { id: "admin", groups: [] }, // the token's owner
        { id: "jane", authenticationId: "a1", groups: ["g2"] },
        { id: "nogroup", authenticationId: "a2", groups: [] },
      ]);
    } finally {
      await env.close();
    }
  });

  it("refuses a user in two groups before sending anything", async () => {
    const env = await withEmulatorClient({ emulator: { profile: "legacy" }, client: { profile: "legacy" } });
    try {
      env.emulator.resetLog();
      const err = await env.client.createMapping({ id: "jane", groups: ["a", "b"] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).problems[0]?.rule).toBe("legacy-one-group");
      expect(env.emulator.requestLog()).toEqual([]);
    } finally {
      await env.close();
    }
  });

  it("encodes path segments: emails with + and @", async () => {
    const env = await withEmulatorClient({
      emulator: { profile: "legacy", seed: { idpUsers: [{ email: "a+b@x.cz", displayName: "A" }] } },
      client: { profile: "legacy" },
    });
    try {
      expect(await env.client.getIdpUser("a+b@x.cz")).toMatchObject({ email: "a+b@x.cz", displayName: "A" });
      expect(env.emulator.requestLog().at(-1)?.url).toBe("/api/auth/users/a%2Bb%40x.cz");
      expect(await env.client.deleteIdpUser("a+b@x.cz")).toBe("deleted");
      expect(await env.client.getIdpUser("a+b@x.cz")).toBeUndefined();
    } finally {
      await env.close();
    }
  });
});
