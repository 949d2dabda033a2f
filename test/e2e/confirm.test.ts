/** `apply` on a terminal asks first; only "yes" goes ahead. (In-process, with a fake terminal.) */
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { Io } from "../../src/cli/io.js";
import { loadSeedFile, startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { ROOT, withTempDir } from "./run-cli.js";

let emulator: EmulatorHandle;
beforeEach(async () => {
  emulator = await startEmulator({
    port: 0,
    tokens: { "confirm-token": "admin" },
    seed: await loadSeedFile(join(ROOT, "fixtures", "demo", "organization.yaml")),
  });
});
afterEach(() => emulator.close());

async function applyAnswering(answer: string, dir: string): Promise<{ code: number; stderr: string }> {
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
  let stderr = "";
  const err = Object.assign(new PassThrough(), { isTTY: true, columns: 120 });
  err.on("data", (d: Buffer) => {
    stderr += d.toString();
    // Answer once the question is on the screen.
    if (d.toString().includes('Only "yes" will be accepted'))
      setImmediate(() => stdin.write(answer === "\x03" ? answer : `${answer}\r`));
  });
  const io: Io = {
    stdout: { write: () => true },
    stderr: err,
    stdin,
    env: { USERSYNC_TOKEN: "confirm-token", USERSYNC_LOGGING_LEVEL: "silent", NO_COLOR: "1" },
    cwd: ROOT,
  };
  const code = await main(
    [
      "apply",
      "--desired",
      join(ROOT, "fixtures", "demo", "users.yaml"),
      "--base-url",
      emulator.url,
      "--credentials-file",
      join(dir, "credentials.csv"),
    ],
    io,
  );
  return { code, stderr };
}

const writes = () => emulator.requestLog().filter((r) => r.method !== "GET").length;

describe("apply confirmation on a terminal", () => {
  it("anything but yes cancels with exit 3 and sends no change", async () => {
    await withTempDir(async (dir) => {
      const r = await applyAnswering("y", dir);
      expect(r.stderr).toContain(
        "Apply changes for 39 people (21 to add, 17 to change, 1 to revoke) and 4 groups (3 to add, 1 to change) to",
      );
      expect(r.code).toBe(3);
      expect(r.stderr).toContain("Nothing was changed");
      expect(writes()).toBe(0);
    });
  });

  it("Ctrl-C at the question cancels like a no (exit 3), not as an unexpected error", async () => {
    await withTempDir(async (dir) => {
      const r = await applyAnswering("\x03", dir);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain("Nothing was changed");
      expect(r.stderr).not.toContain("unexpected error");
      expect(writes()).toBe(0);
    });
  });

  it("yes applies the plan", async () => {
    await withTempDir(async (dir) => {
      const r = await applyAnswering("yes", dir);
      expect(r.code).toBe(0);
      expect(writes()).toBe(64);
    });
  });
});
