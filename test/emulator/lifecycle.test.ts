import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { Pool } from "undici";
import { startEmulator } from "../../src/emulator/index.js";
import { call } from "./http.js";

describe("emulator lifecycle", () => {
  it("listens on 127.0.0.1 on a free port", async () => {
    const emu = await startEmulator();
    try {
      expect(emu.url).toBe(`http://127.0.0.1:${emu.port}`);
      expect(emu.port).toBeGreaterThan(0);
    } finally {
      await emu.close();
    }
  });

  it("close() also closes idle keep-alive connections a client still holds", async () => {
    const emu = await startEmulator();
    const pool = new Pool(emu.url, { connections: 1 });
    try {
      const res = await pool.request({
        method: "GET",
        path: "/api/v1/profile",
        headers: { authorization: "Bearer dev-token" },
      });
      expect(res.statusCode).toBe(200);
      await res.body.text();
      const disconnected = once(pool, "disconnect");
      await emu.close();
      // Only reached when the server ended the idle socket: the pool itself stays open.
      await disconnected;
      await expect(call(emu, "GET", "/api/v1/profile")).rejects.toThrow();
    } finally {
      await pool.close();
    }
  });

  it("close() can be called twice", async () => {
    const emu = await startEmulator();
    await emu.close();
    await expect(emu.close()).resolves.toBeUndefined();
  });
});
