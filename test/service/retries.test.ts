/**
 * Faults injected by the emulator over a real socket. Attempts are counted from the emulator's
 * request log; delays are captured through the client's `sleep` hook instead of being waited for.
 */
import { describe, expect, it } from "vitest";
import { HttpError, NetworkError } from "../../src/errors.js";
import type { EmulatorFaults } from "../../src/emulator/types.js";
import { withEmulatorClient } from "../helpers/env.js";

const RETRIES = 3;

/** A client whose sleeps are recorded; `onSleep` may change the emulator between attempts. */
async function faulty(
  faults: EmulatorFaults,
  extra: { onSleep?: (ms: number) => void; headersMs?: number } = {},
) {
  const sleeps: number[] = [];
  const env = await withEmulatorClient({
    emulator: {
      seed: { idpUsers: [{ email: "jane@example.com", displayName: "Jane" }], groups: [{ id: "g" }] },
    },
    client: {
      profile: "v1",
      retries: RETRIES,
      random: () => 1,
      sleep: async (ms) => {
        sleeps.push(ms);
        extra.onSleep?.(ms);
      },
      ...(extra.headersMs !== undefined ? { timeouts: { headersMs: extra.headersMs } } : {}),
    },
  });
  env.emulator.setFaults(faults);
  env.emulator.resetLog();
  return { ...env, sleeps };
}

describe("retryable faults are retried exactly `retries` times", () => {
  it.each([
    { name: "500", faults: { error500: 1 }, status: 500 },
    { name: "503", faults: { error503: 1 }, status: 503 },
  ])("$name: 1 + retries attempts, exponential backoff between them", async ({ faults, status }) => {
    const env = await faulty(faults);
    try {
      const err = await env.client.listIdpUsers().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HttpError);
      expect((err as HttpError).status).toBe(status);
      expect((err as HttpError).retryable).toBe(true);
      expect(env.emulator.requestLog()).toHaveLength(RETRIES + 1);
      expect(env.sleeps).toEqual([200, 400, 800]);
      expect(env.client.stats()).toMatchObject({ requests: RETRIES + 1, retries: RETRIES });
    } finally {
      await env.close();
    }
  });

  it("dropped connection: a NetworkError after 1 + retries attempts", async () => {
    const env = await faulty({ dropConnection: 1 });
    try {
      const err = await env.client.getGroup("g").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as NetworkError).message).toContain("GET /api/v1/entities/userGroups/g");
      expect(env.emulator.requestLog().filter((e) => e.fault === "drop")).toHaveLength(RETRIES + 1);
    } finally {
      await env.close();
    }
  });

  it("timeout: a request whose answer is slower than headersMs is retried, then fails", async () => {
    const env = await faulty({ latencyMs: 400 }, { headersMs: 50 });
    try {
      const err = await env.client.getGroup("g").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as NetworkError).causeCode).toBe("UND_ERR_HEADERS_TIMEOUT");
      expect(env.client.stats().requests).toBe(RETRIES + 1);
      // The emulator logs each request when its delayed answer is written: wait for the last one.
      await expect.poll(() => env.emulator.requestLog().length, { timeout: 5000 }).toBe(RETRIES + 1);
    } finally {
      await env.close();
    }
  });

  it("a fault that clears is retried until it succeeds", async () => {
    let sleeps = 0;
    const env: Awaited<ReturnType<typeof faulty>> = await faulty(
      { error500: 1 },
      { onSleep: () => (++sleeps === 2 ? env.emulator.setFaults({}) : undefined) },
    );
    try {
      expect(await env.client.getGroup("g")).toEqual({ id: "g", parents: [] });
      expect(env.emulator.requestLog().map((e) => e.status)).toEqual([500, 500, 200]);
      expect(env.client.stats()).toMatchObject({ requests: 3, retries: 2 });
    } finally {
      await env.close();
    }
  });
});

describe("429", () => {
  it("honours Retry-After and pauses every request of the client, not only the throttled one", async () => {
    // The first wait is the throttled request's; by then the pause is set for everybody.
    const env: Awaited<ReturnType<typeof faulty>> = await faulty(
      { throttle429: 1, retryAfterSeconds: 7 },
      { onSleep: () => env.emulator.setFaults({}) },
    );
    try {
      await env.client.getGroup("g");
      expect(env.emulator.requestLog().map((e) => e.status)).toEqual([429, 200]);
      expect(env.sleeps).toHaveLength(1);
      expect(env.sleeps[0]).toBeGreaterThan(6000);
      expect(env.sleeps[0]).toBeLessThanOrEqual(7000);
      // An unrelated request started after the 429 also waits for the pause to end.
      await env.client.getIdpUser("jane@example.com");
      expect(env.sleeps).toHaveLength(2);
      expect(env.sleeps[1]).toBeGreaterThan(6000);
      expect(env.client.stats().throttled).toBe(1);
    } finally {
      await env.close();
    }
  });

  it("is retried exactly `retries` times when it persists", async () => {
    const env = await faulty({ throttle429: 1, retryAfterSeconds: 1 });
    try {
      const err = await env.client.listGroups().catch((e: unknown) => e);
      expect((err as HttpError).status).toBe(429);
      expect((err as HttpError).detail).toBe("injected throttling");
      expect(env.emulator.requestLog()).toHaveLength(RETRIES + 1);
      expect(env.client.stats()).toMatchObject({ requests: RETRIES + 1, throttled: RETRIES + 1 });
    } finally {
      await env.close();
    }
  });
});

describe("errors that are not retried", () => {
  it("401 with an empty body: fatal, one attempt", async () => {
    const env = await withEmulatorClient({ client: { profile: "v1", token: "wrong-token-xyz" } });
    try {
      const err = await env.client.listIdpUsers().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HttpError);
      expect((err as HttpError).fatal).toBe(true);
      expect((err as HttpError).status).toBe(401);
      expect(env.emulator.requestLog()).toHaveLength(1);
    } finally {
      await env.close();
    }
  });

  it("403 surfaces the service's detail and traceId, one attempt", async () => {
    const env = await withEmulatorClient({
      emulator: { forbiddenTokens: ["no-rights-token"] },
      client: { profile: "v1", token: "no-rights-token" },
    });
    try {
      const err = (await env.client.listMappings().catch((e: unknown) => e)) as HttpError;
      expect(err.status).toBe(403);
      expect(err.fatal).toBe(true);
      expect(err.detail).toMatch(/may not manage users/);
      expect(err.traceId).toMatch(/\S+/);
      expect(env.emulator.requestLog()).toHaveLength(1);
    } finally {
      await env.close();
    }
  });

  it("a 4xx validation error names the member and is not retried", async () => {
    const env = await withEmulatorClient({ client: { profile: "v1" } });
    try {
      const err = (await env.client
        .createGroup({ id: ".bad", parents: [] })
        .catch((e: unknown) => e)) as HttpError;
      expect(err).toBeInstanceOf(HttpError);
      expect(err.status).toBe(400);
      expect(err.retryable).toBe(false);
      expect(err.detail).toContain("data.id");
      expect(err.traceId).toMatch(/\S+/);
      expect(err.message).toContain("POST /api/v1/entities/userGroups answered 400");
      expect(env.emulator.requestLog()).toHaveLength(1);
    } finally {
      await env.close();
    }
  });
});

describe("a create whose answer was lost", () => {
  it.each([
    { name: "IdP user (409)", duplicateIdpAs400: false },
    { name: "IdP user (400 user already exists)", duplicateIdpAs400: true },
  ])("$name: retried, the caller learns exists", async ({ duplicateIdpAs400 }) => {
    const env: Awaited<ReturnType<typeof faulty>> = await faulty(
      { loseAnswer: 1, duplicateIdpAs400 },
      { onSleep: () => env.emulator.setFaults({ duplicateIdpAs400 }) },
    );
    try {
      const attempts: number[] = [];
      const result = await env.client.createIdpUser(
        { email: "new+1@example.com", displayName: "New", password: "Init-Pass-42" },
        { onAttempt: (n) => attempts.push(n) },
      );
      expect(result).toEqual({ status: "exists" });
      expect(attempts).toEqual([1, 2]);
      expect(env.emulator.requestLog().map((e) => [e.fault, e.status])).toEqual([
        ["lose", 200],
        [undefined, duplicateIdpAs400 ? 400 : 409],
      ]);
      expect(env.emulator.state().idpUsers.map((u) => u.email)).toContain("new+1@example.com");
    } finally {
      await env.close();
    }
  });

  it("mapping: retried, exists; a lost DELETE answer becomes notFound", async () => {
    const env: Awaited<ReturnType<typeof faulty>> = await faulty(
      { loseAnswer: 1 },
      { onSleep: () => env.emulator.setFaults({}) },
    );
    try {
      expect(await env.client.createMapping({ id: "jane", authenticationId: "a1", groups: ["g"] })).toEqual({
        status: "exists",
      });
      env.emulator.setFaults({ loseAnswer: 1 });
      expect(await env.client.deleteMapping("jane")).toBe("notFound");
      expect(env.emulator.state().mappings.map((m) => m.id)).toEqual(["admin"]); // the token's owner
    } finally {
      await env.close();
    }
  });
});
