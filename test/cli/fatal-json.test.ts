import { describe, expect, it } from "vitest";
import { PassThrough } from "node:stream";
import { main } from "../../src/cli/main.js";
import type { Io } from "../../src/cli/io.js";

function captureIo(env: NodeJS.ProcessEnv = {}): { io: Io; err: () => string; out: () => string } {
  let err = "";
  let out = "";
  const io: Io = {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    stdin: new PassThrough(),
    env,
    cwd: process.cwd(),
  };
  return { io, err: () => err, out: () => out };
}

describe("a fatal error under --log-format json", () => {
  it("is one JSON line with the error code and exit code", async () => {
    const c = captureIo();
    const code = await main(
      ["validate", "--log-format", "json", "--config", "/nonexistent/usersync.yaml"],
      c.io,
    );
    expect(code).not.toBe(0);
    const lines = c
      .err()
      .split("\n")
      .filter((l) => l !== "");
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 60, code: "CONFIG_INVALID", exitCode: code });
    expect(line["msg"]).toEqual(expect.stringContaining("/nonexistent/usersync.yaml"));
  });

  it("also when asked for through USERSYNC_LOGGING_FORMAT", async () => {
    const c = captureIo({ USERSYNC_LOGGING_FORMAT: "json" });
    const code = await main(["validate", "--config", "/nonexistent/usersync.yaml"], c.io);
    expect(JSON.parse(c.err().trim())).toMatchObject({ code: "CONFIG_INVALID", exitCode: code });
  });

  it("stays plain text otherwise", async () => {
    const c = captureIo();
    await main(["validate", "--log-format", "pretty", "--config", "/nonexistent/usersync.yaml"], c.io);
    expect(c.err()).toMatch(/^usersync: /);
  });
});
