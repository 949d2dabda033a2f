/**
 * Rehearse from the CLI (issue 38, item 7): `usersync emulator --directory graph|okta` serves a
 * directory stand-in from a seed file beside the service and prints the `source:` block that
 * reads it; that block, pasted into a config, converges: plan, apply, and a plan that is empty.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { ROOT, runCli, startCli, withTempDir } from "./run-cli.js";

async function printed(out: () => string, done: Promise<unknown>): Promise<string> {
  for (let i = 0; i < 600; i++) {
    if (/groups:\n\s+- .+\n/.test(out())) return out();
    const over = await Promise.race([
      done.then(() => true),
      new Promise((r) => setTimeout(() => r(false), 50)),
    ]);
    if (over) break;
  }
  throw new Error(`the emulator printed no source block:\n${out()}`);
}

describe.each(["okta", "graph"])("usersync emulator --directory %s", (kind) => {
  it("prints a source block that converges against the emulator it serves beside", async () => {
    await withTempDir(async (dir) => {
      const seed = join(ROOT, "fixtures", "stand-ins", `${kind}.yaml`);
      const { child, done } = startCli(
        [
          "emulator",
          "--port",
          "0",
          "--directory",
          kind,
          "--directory-seed",
          seed,
          "--directory-files",
          dir,
          "--log-level",
          "warn",
        ],
        { cwd: dir },
      );
      let stdout = "";
      child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
      try {
        const text = await printed(() => stdout, done);
        const base = text.split("\n")[0]!;
        expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        // The notes are comments; the block parses as YAML as printed.
        const block = parse(text.slice(text.indexOf("source:"))) as { source: Record<string, unknown> };
        expect(block.source["type"]).toBe(kind === "graph" ? "entra" : "okta");
        expect(text).not.toMatch(/BEGIN PRIVATE KEY/);
        const config = join(dir, "usersync.yaml");
        await writeFile(
          config,
          stringify({
            target: { baseUrl: base, allowInsecureHttp: true },
            ...block,
            policy: { deletions: "remove" },
            logging: { format: "json", level: "warn" },
          }),
        );
        const env = { USERSYNC_TOKEN: "dev-token" };
        const apply = await runCli(["apply", "--config", config, "--yes"], { env, cwd: dir });
        expect(apply.stderr).not.toMatch(/"level":50/);
        expect(apply.code).toBe(0);
        const again = await runCli(["plan", "--config", config, "--detailed-exitcode"], { env, cwd: dir });
        expect(again.code, again.stdout + again.stderr).toBe(0);
        expect(again.stdout).toMatch(/No changes/);
      } finally {
        child.kill("SIGTERM");
        expect((await done).code).toBe(0);
      }
    });
  });
});
