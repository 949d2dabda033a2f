/**
 * Every file of fixtures/invalid/ through the CLI (in-process, for speed): `validate` exits 4 and
 * prints exactly the expected problems; `plan` against a live emulator exits 4 too, with the
 * problems on stderr, and the emulator receives zero requests.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { Io } from "../../src/cli/io.js";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { ROOT } from "./run-cli.js";

const expected = JSON.parse(
  await readFile(join(ROOT, "fixtures", "invalid", "expected.json"), "utf8"),
) as Record<string, string[]>;

async function run(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: Io = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdin: new PassThrough(),
    env: { ...env, USERSYNC_LOGGING_LEVEL: "silent" },
    cwd: ROOT,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

let emulator: EmulatorHandle;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, tokens: { "corpus-token": "admin" } });
});
afterAll(() => emulator.close());

describe("fixtures/invalid through the CLI", () => {
  it("has at least 30 files", () => {
    expect(Object.keys(expected).length).toBeGreaterThanOrEqual(30);
  });

  it.each(Object.entries(expected))(
    "%s: validate exits 4 with the expected messages",
    async (file, problems) => {
      const r = await run(["validate", join("fixtures", "invalid", file)]);
      expect(r.code).toBe(4);
      for (const p of problems) expect(r.stdout).toContain(p);
      expect(r.stdout).toMatch(/error\(s\).*is not valid\. Nothing was sent\./);
    },
  );

  it.each(Object.entries(expected))("%s: plan exits 4 and sends nothing", async (file) => {
    emulator.resetLog();
    const r = await run(
      ["plan", "--desired", join("fixtures", "invalid", file), "--base-url", emulator.url],
      {
        USERSYNC_TOKEN: "corpus-token",
      },
    );
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`fixtures/invalid/${file}`);
    expect(r.stdout).toBe("");
    expect(emulator.counters().requests).toBe(0);
  });
});
