import { afterEach, describe, expect, it } from "vitest";
import { FaultEngine, mulberry32 } from "../../src/emulator/faults.js";
import { startEmulator, type EmulatorHandle } from "../../src/emulator/index.js";
import { call, userDoc } from "./http.js";

const USERS = "/api/v1/entities/users";
let emu: EmulatorHandle | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe("injected faults over HTTP", () => {
  it("drops the connection before the request is processed: socket error, nothing stored", async () => {
    emu = await startEmulator({ mapTokenOwners: false, faults: { dropConnection: 1 } });
    await expect(call(emu, "POST", USERS, { body: userDoc("dropped") })).rejects.toThrow();
    expect(emu.state().mappings).toEqual([]);
    expect(emu.requestLog()).toEqual([expect.objectContaining({ method: "POST", status: 0, fault: "drop" })]);
    expect(emu.counters().faults).toEqual({ drop: 1 });
  });

  it("loses the answer of a write that was carried out: socket error, object stored", async () => {
    emu = await startEmulator({ mapTokenOwners: false, faults: { loseAnswer: 1 } });
    await expect(call(emu, "POST", USERS, { body: userDoc("landed") })).rejects.toThrow();
    expect(emu.state().mappings).toEqual([{ id: "landed", groups: [] }]);
    expect(emu.requestLog()).toEqual([expect.objectContaining({ status: 201, fault: "lose" })]);
    // Reads are never "lost": the band only applies to writes.
    expect((await call(emu, "GET", `${USERS}/landed`)).status).toBe(200);
  });

  it("answers 500 and 503 with problem details and stores nothing", async () => {
    emu = await startEmulator({ mapTokenOwners: false, faults: { error500: 1 } });
    const r500 = await call(emu, "POST", USERS, { body: userDoc("x") });
    expect(r500.status).toBe(500);
    expect(r500.headers.get("content-type")).toBe("application/problem+json");
    expect(r500.json).toMatchObject({ status: 500, traceId: expect.any(String) });
    emu.setFaults({ error503: 1 });
    const r503 = await call(emu, "GET", USERS);
    expect(r503.status).toBe(503);
    expect(r503.json.status).toBe(503);
    expect(emu.state().mappings).toEqual([]);
    expect(emu.counters().faults).toEqual({ "500": 1, "503": 1 });
  });

  it("answers 429 with Retry-After and an {error, message} JSON body", async () => {
    emu = await startEmulator({ mapTokenOwners: false, faults: { throttle429: 1, retryAfterSeconds: 7 } });
    const res = await call(emu, "GET", USERS);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.json).toEqual({ error: "Too Many Requests", message: expect.any(String) });
    emu.setFaults({ throttle429: 1 });
    expect((await call(emu, "GET", USERS)).headers.get("retry-after")).toBe("1");
  });

  it("enforces a fixed-window rate limit with X-RateLimit-* headers on every answer", async () => {
    emu = await startEmulator({
      mapTokenOwners: false,
      faults: { rateLimit: { limit: 3, windowSeconds: 60 } },
    });
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 3; i++) {
      const res = await call(emu, "GET", USERS);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBe("3");
      const reset = Number(res.headers.get("x-ratelimit-reset"));
      expect(reset).toBeGreaterThan(0);
      expect(reset).toBeLessThanOrEqual(60);
      remaining.push(res.headers.get("x-ratelimit-remaining"));
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    const over = await call(emu, "POST", USERS, { body: userDoc("late") });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(over.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(over.json.error).toBe("Too Many Requests");
    expect(emu.state().mappings).toEqual([]);
    expect(emu.counters().faults).toEqual({ rateLimit: 1 });
    const unauth = await call(emu, "GET", USERS, { token: null });
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get("x-ratelimit-limit")).toBe("3");
  });

  it("restricts faults to pathPattern", async () => {
    emu = await startEmulator({
      mapTokenOwners: false,
      faults: { error503: 1, pathPattern: /\/auth\/users/ },
    });
    expect((await call(emu, "GET", USERS)).status).toBe(200);
    expect((await call(emu, "GET", "/api/v1/auth/users")).status).toBe(503);
  });

  it("injects the same faults into the same requests for the same seed", async () => {
    const run = async (seed: number) => {
      const e = await startEmulator({
        mapTokenOwners: false,
        faults: { seed, error500: 0.3, error503: 0.2, throttle429: 0.1 },
      });
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 40; i++) statuses.push((await call(e, "GET", USERS)).status);
        return statuses;
      } finally {
        await e.close();
      }
    };
    const a = await run(42);
    expect(await run(42)).toEqual(a);
    expect(new Set(a)).toEqual(new Set([200, 500, 503, 429]));
    expect(await run(43)).not.toEqual(a);
  });

  it("stops injecting after setFaults({})", async () => {
    emu = await startEmulator({ mapTokenOwners: false, faults: { error500: 1 } });
    expect((await call(emu, "GET", USERS)).status).toBe(500);
    emu.setFaults({});
    expect((await call(emu, "GET", USERS)).status).toBe(200);
  });
});

describe("fault engine", () => {
  it("draws latency within latencyMs..latencyMs+jitterMs, repeatably per seed", () => {
    const delays = (seed: number) => {
      const engine = new FaultEngine({ seed, latencyMs: 5, jitterMs: 10 });
      return Array.from({ length: 50 }, () => engine.decide(false).delayMs);
    };
    const a = delays(7);
    expect(a.every((d) => d >= 5 && d <= 15)).toBe(true);
    expect(new Set(a).size).toBeGreaterThan(3);
    expect(delays(7)).toEqual(a);
  });

  it("spreads fault shares roughly as asked", () => {
    const engine = new FaultEngine({ seed: 1, error500: 0.25, dropConnection: 0.25 });
    const counts: Record<string, number> = {};
    for (let i = 0; i < 4000; i++) {
      const f = engine.decide(true).fault ?? "none";
      counts[f] = (counts[f] ?? 0) + 1;
    }
    expect(counts["500"]).toBeGreaterThan(800);
    expect(counts["500"]).toBeLessThan(1200);
    expect(counts.drop).toBeGreaterThan(800);
    expect(counts.none).toBeGreaterThan(1800);
  });

  it("mulberry32 yields numbers in [0, 1)", () => {
    const next = mulberry32(123);
    for (let i = 0; i < 1000; i++) {
      const v = next();
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(1);
    }
  });
});
