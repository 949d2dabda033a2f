/**
 * The examples in the README and docs/ are run, so they stay true: every desired-state example
 * validates, the README's five-minute tour runs command by command against an emulator, and so
 * do the audit and emulator examples. Not run here: docs/kubernetes.md's docker and kubectl
 * lines (no Docker engine or cluster on this machine); test/deploy/manifests.test.ts and
 * scripts/check-package.sh check what they would do.
 */
import { readFile, readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSeedFile, startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { ROOT, runCli, startCli, withTempDir } from "./run-cli.js";

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

  it("the README's plan excerpt is the demo plan's real text (test/e2e/__snapshots__/demo-plan.txt)", async () => {
    const excerpt = (await codeBlocks()).find((b) => b.file === "README.md" && b.text.includes("Summary:"));
    expect(excerpt).toBeDefined();
    const plan = await readFile(join(ROOT, "test", "e2e", "__snapshots__", "demo-plan.txt"), "utf8");
    // Each run of lines between "..." appears in the plan as it is, in order.
    let from = 0;
    for (const part of excerpt!.text.split("...\n")) {
      const at = plan.indexOf(part, from);
      expect(at, part).toBeGreaterThanOrEqual(0);
      from = at + part.length;
    }
    expect(plan.startsWith(excerpt!.text.split("...\n")[0]!)).toBe(true);
  });

  /** The `usersync …` lines of a doc's sh blocks, comments dropped, split into arguments. */
  async function usersyncLines(file: string): Promise<Array<{ args: string[]; redirect?: string }>> {
    const blocks = (await codeBlocks()).filter((b) => b.file === file && b.lang === "sh");
    return blocks
      .flatMap((b) => b.text.split("\n"))
      .map((l) => l.replace(/\s+#.*$/, "").trim())
      .filter((l) => l.startsWith("usersync "))
      .map((l) => {
        const [command, redirect] = l.split(" > ");
        return { args: command!.replace(/^usersync /, "").split(/\s+/), ...(redirect ? { redirect } : {}) };
      });
  }

  it("docs/audits.md: the two audit commands run with the documented exit codes and formats", async () => {
    const lines = await usersyncLines("docs/audits.md");
    expect(lines.map((l) => l.args[0])).toEqual(["plan", "plan"]);
    const emulator = await startEmulator({
      port: 0,
      tokens: { "audit-token": "admin" },
      seed: await loadSeedFile(join(ROOT, "fixtures", "demo", "organization.yaml")),
    });
    try {
      await withTempDir(async (dir) => {
        await writeFile(
          join(dir, "usersync.yaml"),
          `target:\n  baseUrl: ${emulator.url}\nsource:\n  desired: ${join(ROOT, "fixtures", "demo", "users.yaml")}\n`,
        );
        const [markdown, json] = lines;
        const drift = await runCli(markdown!.args, { cwd: dir, env: { USERSYNC_TOKEN: "audit-token" } });
        expect(drift.code).toBe(2); // the demo organization drifted
        await writeFile(join(dir, markdown!.redirect!), drift.stdout);
        expect(drift.stdout).toMatch(/^## usersync plan/);
        const machine = await runCli(json!.args, { cwd: dir, env: { USERSYNC_TOKEN: "audit-token" } });
        expect(machine.code).toBe(0);
        const saved = JSON.parse(await readFile(join(dir, "plan.json"), "utf8")) as { formatVersion: number };
        expect(saved.formatVersion).toBe(2);
      });
      expect(emulator.requestLog().every((r) => r.method === "GET")).toBe(true);
    } finally {
      await emulator.close();
    }
  });

  it("docs/emulator.md: the emulator starts as shown and answers the curl request", async () => {
    const [line] = await usersyncLines("docs/emulator.md");
    expect(line?.args.slice(0, 3)).toEqual(["emulator", "--port", "8080"]);
    const doc = await readFile(join(ROOT, "docs", "emulator.md"), "utf8");
    const curl = /^curl -H 'Authorization: Bearer ([^']+)' http:\/\/127\.0\.0\.1:8080(\S+)$/m.exec(doc);
    expect(curl).not.toBeNull();
    await withTempDir(async (dir) => {
      // Port 0 instead of 8080, so the test never collides with anything; run in a temporary
      // folder (where --data ./org.json goes) with the repo's fixtures.
      const args = line!.args.map((a) =>
        a === "8080" ? "0" : a.startsWith("fixtures/") ? join(ROOT, a) : a,
      );
      const { child, done } = startCli(args, { cwd: dir });
      try {
        const url = await new Promise<string>((resolve) =>
          child.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim())),
        );
        const res = await fetch(`${url}${curl![2]}`, { headers: { Authorization: `Bearer ${curl![1]}` } });
        expect(res.status).toBe(200);
        expect(((await res.json()) as unknown[]).length).toBe(33);
      } finally {
        child.kill("SIGTERM");
        expect((await done).code).toBe(0);
      }
      // --data ./org.json was written where the emulator ran.
      expect((await stat(join(dir, "org.json"))).isFile()).toBe(true);
    });
  });
});
