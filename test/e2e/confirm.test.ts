/** `apply` on a terminal asks first; only "yes" goes ahead. (In-process, with a fake terminal.) */
import { writeFile } from "node:fs/promises";
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

async function applyAnswering(
  answer: string,
  dir: string,
  desired = join(ROOT, "fixtures", "demo", "users.yaml"),
): Promise<{ code: number; stderr: string; stdout: string }> {
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
  let stderr = "";
  const err = Object.assign(new PassThrough(), { isTTY: true, columns: 120 });
  err.on("data", (d: Buffer) => {
    stderr += d.toString();
    // Answer once the question is on the screen.
    if (d.toString().includes('Only "yes" will be accepted'))
      setImmediate(() => stdin.write(answer === "\x03" ? answer : `${answer}\r`));
  });
  let stdout = "";
  const io: Io = {
    stdout: { write: (d: string) => ((stdout += d), true) },
    stderr: err,
    stdin,
    env: { USERSYNC_TOKEN: "confirm-token", USERSYNC_LOGGING_LEVEL: "silent", NO_COLOR: "1" },
    cwd: ROOT,
  };
  const code = await main(
    [
      "apply",
      "--desired",
      desired,
      "--base-url",
      emulator.url,
      "--credentials-file",
      join(dir, "credentials.csv"),
    ],
    io,
  );
  return { code, stderr, stdout };
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
      // The cancellation starts a line of its own, not after the question on its line.
      const [first, ...escaped] = r.stderr.split("\u001b");
      const plain = [first, ...escaped.map((part) => part.replace(/^\[[\d;]*[A-Za-z]/, ""))].join("");
      expect(plain).toContain('Only "yes" will be accepted: \nusersync: apply cancelled');
      expect(r.stderr).not.toContain("unexpected error");
      expect(writes()).toBe(0);
    });
  });

  it("yes applies the plan", async () => {
    await withTempDir(async (dir) => {
      const r = await applyAnswering("yes", dir);
      expect(r.code).toBe(0);
      // The demo's leaver loses their login and their groups (revoke: no access left).
      expect(writes()).toBe(56);
    });
  });

  it("a big plan: only the summary before the question, which counts people", async () => {
    await withTempDir(async (dir) => {
      const desired = join(dir, "users.csv");
      const rows = Array.from({ length: 150 }, (_, i) => `new${i}@demo.example,new${i}`);
      await writeFile(desired, `email,id\n${rows.join("\n")}\n`);
      const r = await applyAnswering("no", dir, desired);
      expect(r.code).toBe(3);
      expect(r.stdout).toMatch(/Summary:\n {2}People +150 to add\n/);
      // The demo organization's 31 people the file does not name: only incremental mode keeps them.
      expect(r.stdout).toMatch(/\n {2}Kept by mode +31 people not in the file/);
      expect(r.stdout).not.toContain("# user");
      expect(r.stdout).toContain("Changes not shown (--detail summary)");
      expect(r.stderr).toMatch(/Apply changes for 150 people \(150 to add\) to http:\/\/127\.0\.0\.1:\d+/);
      expect(writes()).toBe(0);
    });
  });
});
