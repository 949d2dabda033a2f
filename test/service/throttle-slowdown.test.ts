/**
 * Sustained 429s slow the whole client down (not each request), calm stretches speed it back up,
 * and the run says so once, with the lowest rate and the one it ended at. Against the emulator
 * over a real socket; waits are instant.
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
  it("slow the client down run-wide and are reported once, with the rate it ended at", async () => {
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
      for (let i = 0; i < 100; i += 1) expect((await env.client.getGroup("g"))?.id).toBe("g");
      const throttled = env.client.stats().throttled;
      expect(throttled).toBeGreaterThan(10);
      await env.close();
      closed = true;
      const said = out.lines().filter((l) => String(l["msg"]).includes("slowed down"));
      expect(said).toHaveLength(1);
      expect(said[0]).toMatchObject({ throttled });
      // Halved at least once from 40, never below 1 request per second; still throttled at the
      // end, so it ended at its lowest and advises starting there.
      const rps = said[0]!["requestsPerSecond"] as number;
      expect(rps).toBeLessThanOrEqual(20);
      expect(rps).toBeGreaterThanOrEqual(1);
      expect(said[0]!["lowest"]).toBe(rps);
      expect(said[0]!["msg"]).toContain(`lower execution.requestsPerSecond to ${rps} to start there`);
    } finally {
      if (!closed) await env.close();
    }
  });
});

describe("a service that stops throttling", () => {
  it("lets the run climb back to its configured rate, and the run says it recovered", async () => {
    // A clock that only waiting moves: a calm stretch's 10 s pass as the limiter paces requests.
    let t = Date.now();
    const out = capture();
    const env = await withEmulatorClient({
      emulator: {
        seed: { groups: [{ id: "g" }] },
        faults: { throttle429: 0.5, retryAfterSeconds: 0, seed: 7 },
      },
      client: {
        profile: "v1",
        requestsPerSecond: 20,
        retries: 20,
        now: () => t,
        sleep: (ms) => {
          t += ms;
          return Promise.resolve();
        },
        logger: createLogger({ level: "debug", destination: out.stream }),
      },
    });
    let closed = false;
    try {
      for (let i = 0; i < 100; i += 1) expect((await env.client.getGroup("g"))?.id).toBe("g");
      env.emulator.setFaults({});
      for (let i = 0; i < 1200; i += 1) expect((await env.client.getGroup("g"))?.id).toBe("g");
      const throttled = env.client.stats().throttled;
      const byStatus = env.emulator.counters().byStatus;
      await env.close();
      closed = true;
      expect(byStatus).toEqual({ "200": 1300, "429": throttled });
      const lines = out.lines();
      const rates = (msg: string) =>
        lines.filter((l) => l["msg"] === msg).map((l) => l["requestsPerSecond"] as number);
      const downs = rates("sustained 429s: slowing down");
      const lowest = Math.min(...downs);
      expect(lowest).toBeLessThanOrEqual(10);
      // After the last wave, an eighth of 20 at a time, back to 20.
      const last = downs.at(-1)!;
      const steps = (20 - last) / 2.5;
      const climb = Array.from({ length: steps }, (_, i) => last + 2.5 * (i + 1));
      expect(rates("calm stretch: speeding up").slice(-steps)).toEqual(climb);
      const said = lines.filter((l) => String(l["msg"]).includes("slowed down"));
      expect(said).toHaveLength(1);
      expect(said[0]).toMatchObject({
        level: 40,
        throttled,
        lowest,
        requestsPerSecond: 20,
        msg: `the service kept answering 429 (${throttled} in all): the run slowed down to ${lowest} requests per second at the lowest and was back at 20 by the end`,
      });
    } finally {
      if (!closed) await env.close();
    }
  });
});
