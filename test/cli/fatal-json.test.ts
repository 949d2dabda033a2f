import { describe, expect, it } from "vitest";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { main } from "../../src/cli/main.js";
import { ROOT, withTempDir } from "../e2e/run-cli.js";

const DEMO_USERS = join(ROOT, "fixtures", "demo", "users.yaml");
import { captureIo as capture } from "../helpers/capture-io.js";

const captureIo = (env: NodeJS.ProcessEnv = {}, isTTY = false) => capture({ env, isTTY });

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

  it("stays plain text when pretty is asked for", async () => {
    const c = captureIo();
    await main(["validate", "--log-format", "pretty", "--config", "/nonexistent/usersync.yaml"], c.io);
    expect(c.err()).toMatch(/^usersync: /);
  });
});

describe("a fatal error with the format left to auto", () => {
  it("off a terminal is a JSON line like the logs before it: stderr is JSON lines only", async () => {
    const c = captureIo({ USERSYNC_TOKEN: "Bearer fatal-json-t0ken" });
    // No base URL: the run stops after the config (with its warning) and the desired state were read.
    const code = await main(["plan", "--desired", DEMO_USERS], c.io);
    expect(code).toBe(4);
    const lines = c.err().trim().split("\n");
    // The warning about the token's "Bearer " prefix, then the fatal error: both JSON.
    expect(lines.map((l) => (JSON.parse(l) as { level: number }).level)).toEqual([40, 60]);
  });

  it("on a terminal is text for a person", async () => {
    const c = captureIo({}, true);
    expect(await main(["plan", "--bogus"], c.io)).toBe(4);
    expect(c.err()).toMatch(/^usersync: Unknown option '--bogus'/);
  });

  it("follows the format the config file chose once it was read", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "usersync.yaml"), "logging:\n  format: pretty\n");
      const c = captureIo();
      const code = await main(
        ["plan", "--config", join(dir, "usersync.yaml"), "--desired", join(dir, "x.yaml")],
        c.io,
      );
      // The desired file is missing: exit 5 (the source could not be read), in the config's format.
      expect(code).toBe(5);
      expect(c.err()).toMatch(/^usersync: /m);
      expect(c.err()).not.toContain('"level"');
    });
  });
});
