/**
 * The built CLI's usage errors and output paths: typo suggestions, per-command help, output
 * folders created (or a configuration error, exit 4), and where generated passwords went.
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadSeedFile, startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { logMessages, ROOT, runCli, withTempDir } from "./run-cli.js";

const TOKEN = "usage-token-71c2";
const DEMO = join(ROOT, "fixtures", "demo");
const DESIRED = join(DEMO, "users.yaml");

describe("usage errors", () => {
  it("suggests the nearest option or command, exit 4", async () => {
    const option = await runCli(["plan", "--frmat", "json"]);
    expect(option.code).toBe(4);
    expect(logMessages(option.stderr)).toContain("Did you mean --format?");
    const command = await runCli(["aplly"]);
    expect(command.code).toBe(4);
    expect(logMessages(command.stderr)).toContain('Did you mean "apply"?');
    const far = await runCli(["plan", "--zzzzzzzz"]);
    expect(far.code).toBe(4);
    expect(logMessages(far.stderr)).not.toContain("Did you mean");
  });

  it("lists and takes only the options a command uses", async () => {
    const exportHelp = await runCli(["export", "--help"]);
    expect(exportHelp.stdout).not.toContain("--desired");
    expect(exportHelp.stdout).not.toContain("--groups");
    expect(exportHelp.stdout).toContain("--base-url");
    const validateHelp = await runCli(["validate", "--help"]);
    expect(validateHelp.stdout).not.toContain("--base-url");
    expect(validateHelp.stdout).toContain("--desired");
    const r = await runCli(["export", "--desired", "x.yaml"]);
    expect(r.code).toBe(4);
    expect(logMessages(r.stderr)).toContain("Unknown option '--desired'");
  });
});

describe("output paths", () => {
  let emulator: EmulatorHandle;
  beforeEach(async () => {
    emulator = await startEmulator({
      port: 0,
      tokens: { [TOKEN]: "admin" },
      seed: await loadSeedFile(join(DEMO, "organization.yaml")),
    });
  });
  afterEach(async () => {
    await emulator.close();
  });
  const apply = (extra: string[]) =>
    runCli(["apply", "--desired", DESIRED, "--base-url", emulator.url, "--yes", ...extra], {
      env: { USERSYNC_TOKEN: TOKEN },
    });

  it("creates the folder of every file option, and says where the passwords went", async () => {
    await withTempDir(async (dir) => {
      const paths = {
        journal: join(dir, "a", "journal.jsonl"),
        report: join(dir, "b", "report.json"),
        credentials: join(dir, "c", "credentials.csv"),
        out: join(dir, "d", "plan.json"),
        metrics: join(dir, "e", "usersync.prom"),
      };
      const r = await apply([
        "--journal",
        paths.journal,
        "--report",
        paths.report,
        "--credentials-file",
        paths.credentials,
        "--out",
        paths.out,
        "--metrics-file",
        paths.metrics,
      ]);
      expect(logMessages(r.stderr)).not.toContain("unexpected error");
      expect(r.code).toBe(0);
      for (const p of Object.values(paths)) expect(existsSync(p)).toBe(true);
      expect(r.stdout).toMatch(
        new RegExp(
          `Initial passwords of the \\d+ new built-in user\\(s\\) created: ${paths.credentials} \\(mode 0600\\)`,
        ),
      );
    });
  });

  it("a folder that cannot be made is a configuration error (exit 4) naming the option; nothing is sent", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "a-file");
      await writeFile(file, "");
      const r = await apply(["--journal", join(file, "journal.jsonl")]);
      expect(r.code).toBe(4);
      expect(logMessages(r.stderr)).toContain("--journal");
      expect(logMessages(r.stderr)).not.toContain("unexpected error");
      expect(emulator.requestLog().filter((q) => q.method !== "GET")).toHaveLength(0);
    });
  });

  it("a path from the config is named by its key (output.report), not by a flag nobody gave", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "a-file");
      await writeFile(file, "");
      const report = join(file, "report.json");
      const r = await runCli(["apply", "--desired", DESIRED, "--base-url", emulator.url, "--yes"], {
        env: { USERSYNC_TOKEN: TOKEN, USERSYNC_OUTPUT_REPORT: report },
      });
      expect(r.code).toBe(4);
      expect(logMessages(r.stderr)).toContain(
        `output.report ${report}: its folder ${file} cannot be created or written`,
      );
      expect(logMessages(r.stderr)).not.toContain("--report");
    });
  });
});
