/** `auto` profile detection: one GET of /api/v1/profile; auth failures are errors, not answers. */
import { describe, expect, it } from "vitest";
import { HttpError } from "../../src/errors.js";
import { startEmulator } from "../../src/emulator/index.js";
import { createClient } from "../../src/service/index.js";
import { withEmulatorClient, TEST_TOKEN_USER } from "../helpers/env.js";

describe("auto detection", () => {
  it("picks v1 on a v1 service with one request, and reuses the profile answer", async () => {
    const env = await withEmulatorClient({ emulator: { profile: "v1" } });
    try {
      expect(env.client.profile).toBe("v1");
      expect(await env.client.getProfile()).toEqual({ userId: TEST_TOKEN_USER });
      expect(env.emulator.requestLog().map((e) => `${e.method} ${e.url} ${e.status}`)).toEqual([
        "GET /api/v1/profile 200",
      ]);
    } finally {
      await env.close();
    }
  });

  it("picks legacy when /api/v1/profile answers 404", async () => {
    const env = await withEmulatorClient({
      emulator: { profile: "legacy", seed: { idpUsers: [{ email: "a@b.cz", displayName: "A" }] } },
    });
    try {
      expect(env.client.profile).toBe("legacy");
      expect(await env.client.getProfile()).toBeUndefined();
      expect((await env.client.listIdpUsers()).map((u) => u.email)).toEqual(["a@b.cz"]);
      expect(env.emulator.requestLog().map((e) => e.url)).toEqual(["/api/v1/profile", "/api/auth/users"]);
    } finally {
      await env.close();
    }
  });

  it.each([
    { token: "not-a-token", status: 401 },
    { token: "forbidden-token", status: 403 },
  ])("a $status during detection is a fatal HttpError, sent once", async ({ token, status }) => {
    const emulator = await startEmulator({ port: 0, forbiddenTokens: ["forbidden-token"] });
    try {
      const err = await createClient({
        baseUrl: emulator.url,
        token,
        profile: "auto",
        sleep: async () => {},
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HttpError);
      expect((err as HttpError).status).toBe(status);
      expect((err as HttpError).fatal).toBe(true);
      expect((err as HttpError).message).not.toContain(token);
      expect(emulator.requestLog()).toHaveLength(1);
    } finally {
      await emulator.close();
    }
  });

  it("rejects a base URL that is not http(s) before sending anything", async () => {
    await expect(createClient({ baseUrl: "ftp://x", token: "t", profile: "v1" })).rejects.toThrow(
      /must be http\(s\)/,
    );
  });
});

describe("client options", () => {
  it("a CA file that cannot be read is a ConfigError naming the file", async () => {
    await expect(
      createClient({
        baseUrl: "https://127.0.0.1:1",
        token: "t",
        profile: "v1",
        caFile: "/nonexistent/ca.pem",
      }),
    ).rejects.toThrow(/cannot read CA file \/nonexistent\/ca\.pem/);
  });
  it("an empty token is refused before any request", async () => {
    await expect(createClient({ baseUrl: "http://127.0.0.1:1", token: "", profile: "v1" })).rejects.toThrow(
      /token is empty/,
    );
  });
});
