/** `auto` profile detection: one GET of /api/v1/profile; auth failures are errors, not answers. */
import { describe, expect, it } from "vitest";
import { Writable } from "node:stream";
import { exitCodeFor, HttpError } from "../../src/errors.js";
import { createLogger } from "../../src/logging.js";
import { startEmulator } from "../../src/emulator/index.js";
import { createClient } from "../../src/service/index.js";
import { withEmulatorClient, TEST_TOKEN_USER } from "../helpers/env.js";

describe("auto detection", () => {
  it("picks v1 on a v1 service with one request, and reuses the profile answer", async () => {
    const env = await withEmulatorClient({ emulator: { profile: "v1" } });
    try {
      expect(env.client.profile).toBe("v1");
      expect(await env.client.getProfile()).toEqual({
        userId: TEST_TOKEN_USER,
        organizationId: "emulated-org",
      });
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
      expect(env.emulator.requestLog().map((e) => e.url)).toEqual([
        "/api/v1/profile",
        "/api/entities/userGroups?page=0&size=1",
        "/api/auth/users",
      ]);
    } finally {
      await env.close();
    }
  });

  it("says which dialect it chose and why", async () => {
    for (const profile of ["v1", "legacy"] as const) {
      const emulator = await startEmulator({ port: 0, profile });
      const lines: string[] = [];
      const logger = createLogger({
        destination: new Writable({ write: (c, _e, done) => done(void lines.push(`${c}`)) }),
      });
      try {
        const client = await createClient({
          baseUrl: emulator.url,
          token: "dev-token",
          profile: "auto",
          logger,
        });
        await client.close();
        const said = lines.map((l) => JSON.parse(l) as { msg: string; profile: string });
        expect(said).toContainEqual(
          expect.objectContaining({
            profile,
            msg:
              profile === "v1"
                ? "API dialect v1 (target.apiProfile auto): GET /api/v1/profile answered"
                : "API dialect legacy (target.apiProfile auto): GET /api/v1/profile answered 404, GET /api/entities/userGroups answered",
          }),
        );
      } finally {
        await emulator.close();
      }
    }
  });

  it.each(["/gooddata", "/api/v1", "/elsewhere"])(
    "nothing of the service at the URL (%s): a 404 naming target.baseUrl, not a legacy service",
    async (suffix) => {
      // An emulator of neither dialect stands for any other server: every path answers 404.
      const emulator = await startEmulator({ port: 0, profile: "v1" });
      try {
        const baseUrl = `${emulator.url}${suffix}`;
        const err = await createClient({ baseUrl, token: "dev-token", profile: "auto" }).catch(
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(HttpError);
        expect((err as HttpError).status).toBe(404);
        expect(exitCodeFor(err)).toBe(1);
        expect((err as Error).message).toBe(
          `GET /api/v1/profile answered 404 (and the legacy paths too): nothing of the service answers at ${baseUrl}. ` +
            `Check target.baseUrl (--base-url): it is the service's root URL, without a path: try ${emulator.url} (not ${suffix})`,
        );
        // Two GETs, nothing else: no listing, no plan.
        expect(emulator.requestLog().map((e) => `${e.method} ${e.status}`)).toEqual(["GET 404", "GET 404"]);
      } finally {
        await emulator.close();
      }
    },
  );

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
