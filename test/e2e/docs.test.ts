/**
 * The examples in the README and docs/ are run, so they stay true: every desired-state example
 * validates, and the README's five-minute tour runs command by command against an emulator.
 */
import { readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSeedFile, startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { ROOT, runCli, withTempDir } from "./run-cli.js";

interface Block {
  file: string;
  lang: string;
  text: string;
}

async function markdownFiles(): Promise<string[]> {
  const docs = (await readdir(join(ROOT, "docs")))
    .filter((f) => f.endsWith(".md"))
    .map((f) => join("docs", f));
  return ["README.md", ...docs];
}

async function codeBlocks(): Promise<Block[]> {
  const blocks: Block[] = [];
  for (const file of await markdownFiles()) {
    const text = await readFile(join(ROOT, file), "utf8");
    for (const m of text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)) {
      blocks.push({ file, lang: m[1] ?? "", text: m[2] ?? "" });
    }
  }
  return blocks;
}

describe("documentation examples", () => {
  it("every desired-state example (YAML with version: 1, CSV with an email column) validates", async () => {
    const examples = (await codeBlocks()).filter(
      (b) =>
        (b.lang === "yaml" && /^version: 1/m.test(b.text)) || (b.lang === "csv" && /^email,/.test(b.text)),
    );
    expect(examples.length).toBeGreaterThanOrEqual(3);
    await withTempDir(async (dir) => {
      for (const [i, b] of examples.entries()) {
        const file = join(dir, `example-${i}.${b.lang}`);
        await writeFile(file, b.text);
        const r = await runCli(["validate", file]);
        expect(`${b.file}: ${r.stdout}${r.stderr}`).toMatch(/OK: /);
        expect(r.code, `${b.file} example ${i}`).toBe(0);
      }
    });
  });

  describe("the README's five-minute tour", () => {
    let emulator: EmulatorHandle;
    beforeAll(async () => {
      emulator = await startEmulator({
        port: 0,
        tokens: { "dev-token": "admin" },
        seed: await loadSeedFile(join(ROOT, "fixtures", "demo", "organization.yaml")),
      });
    });
    afterAll(() => emulator.close());

    it("runs every command of the tour with the documented outcome", async () => {
      const readme = await readFile(join(ROOT, "README.md"), "utf8");
      const tour = (await codeBlocks()).find(
        (b) => b.file === "README.md" && b.text.includes("dist/cli.js emulator"),
      );
      expect(tour).toBeDefined();
      const lines = tour!.text
        .replace(/\\\n\s*/g, "")
        .split("\n")
        .map((l) => l.replace(/\s+#.*$/, "").trim())
        .filter((l) => l.startsWith("node dist/cli.js ") && !l.includes(" emulator "));
      expect(lines.length).toBeGreaterThanOrEqual(5);
      expect(readme).toContain("export USERSYNC_TOKEN=dev-token");
      await withTempDir(async (dir) => {
        for (const line of lines) {
          const [command, redirect] = line.split(" > ");
          const args = command!
            .replace("node dist/cli.js ", "")
            .replaceAll("http://127.0.0.1:8080", emulator.url)
            .replace("./credentials.csv", join(dir, "credentials.csv"))
            .split(/\s+/);
          const r = await runCli(args, { env: { USERSYNC_TOKEN: "dev-token" } });
          expect(r.code, `${line}\n${r.stderr}`).toBe(0);
          if (redirect) await writeFile(join(dir, redirect), r.stdout);
        }
      });
      // The tour's apply converged, so its last plan (--detailed-exitcode) exited 0 above.
      expect(emulator.state().mappings.length).toBeGreaterThan(50);
    });
  });
});
