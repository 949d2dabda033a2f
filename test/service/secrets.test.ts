/**
 * A client at debug level, a token and passwords, faults that produce retries and errors: neither
 * secret appears in any log line or any error (message, stack, JSON, inspect).
 */
import { Writable } from "node:stream";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logging.js";
import { withEmulatorClient } from "../helpers/env.js";

const TOKEN = "tkn-7d1e0b5c9a2f44e1";
const PASSWORDS = ["Pw-first-93jd!x", "Pw-second-k2@m+z"];

describe("secrets", () => {
  it("never reach logs or errors", async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: "trace",
      destination: new Writable({
        write(chunk: Buffer | string, _enc, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    });
    const env = await withEmulatorClient({
      emulator: { tokens: { [TOKEN]: "admin" } },
      client: { token: TOKEN, profile: "v1", logger, retries: 2 },
    });
    const errors: unknown[] = [];
    const keep = (e: unknown) => {
      errors.push(e);
    };
    try {
      await env.client.createIdpUser({ email: "a@example.com", displayName: "A", password: PASSWORDS[0]! });
      env.emulator.setFaults({ error500: 1 });
      await env.client
        .createIdpUser({ email: "b@example.com", displayName: "B", password: PASSWORDS[1]! })
        .catch(keep);
      env.emulator.setFaults({ dropConnection: 1 });
      await env.client
        .createIdpUser({ email: "c@example.com", displayName: "C", password: PASSWORDS[1]! })
        .catch(keep);
      env.emulator.setFaults({ throttle429: 1 });
      await env.client.listIdpUsers().catch(keep);
      env.emulator.setFaults({});
      // A password in a request the service rejects (the email is empty).
      await env.client.createIdpUser({ email: "", displayName: "X", password: PASSWORDS[0]! }).catch(keep);
    } finally {
      await env.close();
    }
    expect(errors.length).toBeGreaterThanOrEqual(3);
    expect(lines.length).toBeGreaterThan(5);
    const everything = [
      ...lines,
      ...errors.flatMap((e) => [
        String(e),
        (e as Error).stack ?? "",
        JSON.stringify(e),
        inspect(e, { depth: 5 }),
      ]),
    ].join("\n");
    for (const secret of [TOKEN, ...PASSWORDS, encodeURIComponent(PASSWORDS[1]!)]) {
      expect(everything).not.toContain(secret);
    }
  });
});
