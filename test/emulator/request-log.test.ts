import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator/index.js";
import { call } from "./http.js";

let emu: EmulatorHandle;
beforeEach(async () => {
  emu = await startEmulator({ requestLogLimit: 3 });
});
afterEach(() => emu.close());

describe("request log and counters", () => {
  it("logs method, url, status and the body with passwords replaced by ***", async () => {
    await call(emu, "POST", "/api/v1/auth/users", {
      body: { email: "a@b.c", displayName: "A", password: "hunter2" },
    });
    const [entry] = emu.requestLog();
    expect(entry).toEqual({
      method: "POST",
      url: "/api/v1/auth/users",
      status: 200,
      body: { email: "a@b.c", displayName: "A", password: "***" },
      time: expect.any(Number),
    });
    expect(JSON.stringify(emu.requestLog())).not.toContain("hunter2");
    // The one place the password exists: the state tests read.
    expect(emu.state().idpUsers[0]?.password).toBe("hunter2");
  });

  it("counts by method and status, keeps the last N entries, and resets", async () => {
    for (let i = 0; i < 4; i++) await call(emu, "GET", `/api/v1/entities/users?page=${i}`);
    await call(emu, "GET", "/api/v1/entities/users/nobody");
    expect(emu.counters()).toEqual({
      requests: 5,
      byMethod: { GET: 5 },
      byStatus: { "200": 4, "404": 1 },
      faults: {},
    });
    expect(emu.requestLog().map((e) => e.url)).toEqual([
      "/api/v1/entities/users?page=2",
      "/api/v1/entities/users?page=3",
      "/api/v1/entities/users/nobody",
    ]);
    emu.resetLog();
    expect(emu.requestLog()).toEqual([]);
    expect(emu.counters().requests).toBe(0);
  });
});
