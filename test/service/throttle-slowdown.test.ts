/**
 * Sustained 429s slow the whole client down (not each request) and the run says so once, with
 * the rate it settled on. Against the emulator over a real socket; waits are instant.
 */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logging.js";
import { withEmulatorClient } from "../helpers/env.js";

function capture(): { stream: Writable; lines: () => Array<Record<string, unknown>> } {
  let text = "";
  return {
    stream: new Writable({
      write(chunk: Buffer, _enc, done) {
        text += chunk.toString();
        done();
      },
    }),
    lines: () =>
      text
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe("sustained 429s", () => {
  it("slow the client down run-wide and are reported once, with the settled rate", async () => {
    const out = capture();
    const env = await withEmulatorClient({
      emulator: {
        seed: { groups: [{ id: "g" }] },
        faults: { throttle429: 0.5, retryAfterSeconds: 0, seed: 7 },
      },
      client: {
        profile: "v1",
        requestsPerSecond: 40,
        retries: 20,
        logger: createLogger({ level: "warn", destination: out.stream }),
      },
    });
    let closed = false;
    try {
      for (let i = 0; i < 40; i += 1) expect((await env.client.getGroup("g"))?.id).toBe("g");
      const throttled = env.client.stats().throttled;
      expect(throttled).toBeGreaterThan(10);
      await env.close();
      closed = true;
      const said = out.lines().filter((l) => String(l["msg"]).includes("slowed down"));
      expect(said).toHaveLength(1);
      expect(said[0]).toMatchObject({ throttled });
      // Halved at least once from 40, never below 1 request per second.
      const rps = said[0]!["requestsPerSecond"] as number;
      expect(rps).toBeLessThanOrEqual(20);
      expect(rps).toBeGreaterThanOrEqual(1);
    } finally {
      if (!closed) await env.close();
    }
  });
});
