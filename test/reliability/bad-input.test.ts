/**
 * Bad input never reaches the service: every file of fixtures/invalid/ and generated junk (random
 * bytes, files cut short, 10 MB lines) given to `usersync apply --yes` exits 4 with a message
 * naming the file, and the emulator receives zero requests.
 */
import { randomBytes } from "node:crypto";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { ROOT, runCli, withTempDir } from "../e2e/run-cli.js";
import { TOKEN, cliEnv, seedOf } from "./org.js";

const INVALID = join(ROOT, "fixtures", "invalid");
const TEN_MB = 10 * 1024 * 1024;
const letters = (n: number): string => "x".repeat(n);

/** Junk a real pipeline produces: a binary upload, a transfer cut short, a runaway export. */
const junk: Record<string, () => Buffer | string> = {
  "random-bytes.csv": () => randomBytes(64 * 1024),
  "random-bytes.yaml": () => randomBytes(64 * 1024),
  "truncated-in-quotes.csv": () =>
    'email,id,displayName\njane@example.com,jane,"Jane\nbob@example.com,bob,"Bob Sm',
  "truncated-flow.yaml": () => "version: 1\nusers:\n  - email: jane@example.com\n    groups: [sales, mark",
  "truncated-after-version.yaml": () => "version: 1\nusers:\n",
  "ten-mb-header.csv": () => letters(TEN_MB),
  "ten-mb-cell.csv": () => `email,id,displayName\njane@example.com,jane,${letters(TEN_MB)}\n`,
  "ten-mb-line.yaml": () =>
    `version: 1\nusers:\n  - email: jane@example.com\n    displayName: ${letters(TEN_MB)}\n`,
};

let emulator: EmulatorHandle;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" }, seed: seedOf() });
});
afterAll(async () => {
  await emulator.close();
});

async function expectRefused(file: string, dir: string): Promise<void> {
  const r = await runCli(
    [
      "apply",
      "--yes",
      "--desired",
      file,
      "--base-url",
      emulator.url,
      "--credentials-file",
      join(dir, "c.csv"),
    ],
    { env: cliEnv(), cwd: dir },
  );
  expect(r.code, r.stderr).toBe(4);
  expect(r.stderr).toContain(file);
  expect(emulator.counters().requests).toBe(0);
}

describe("bad input: exit 4, a message, zero requests", () => {
  it("every file of fixtures/invalid/", async () => {
    const files = (await readdir(INVALID)).filter((f) => f !== "expected.json").sort();
    expect(files.length).toBeGreaterThanOrEqual(30);
    await withTempDir(async (dir) => {
      // Three CLIs at a time: each run is mostly process start-up.
      for (let i = 0; i < files.length; i += 3) {
        await Promise.all(files.slice(i, i + 3).map((f) => expectRefused(join(INVALID, f), dir)));
      }
    });
  });

  it.each(Object.keys(junk))("generated junk: %s", async (name) => {
    await withTempDir(async (dir) => {
      const file = join(dir, name);
      await writeFile(file, junk[name]!());
      await expectRefused(file, dir);
    });
  });
});
