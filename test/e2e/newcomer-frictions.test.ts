/**
 * Small frictions a newcomer met (issue 40, item 6), each through the built CLI where the person
 * sees it: the command hints name `npx usersync` unless `usersync` on the PATH is this CLI; a
 * Latin-1 CSV's error names the byte that is wrong; a `usersync.yml` is not silently ignored; a
 * mistyped group gets a did-you-mean and no hint that would create the typo; a permission change
 * in two steps shows its net change per group. (The build's swap of dist/: test/deploy/build.test.ts.)
 */
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSeedFile, startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { CLI, logMessages, ROOT, runCli, withTempDir } from "./run-cli.js";

const TOKEN = "frictions-token-5e1";
const DEMO = join(ROOT, "fixtures", "demo");

let emulator: EmulatorHandle;
beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    seed: await loadSeedFile(join(DEMO, "organization.yaml")),
  });
});
afterAll(async () => {
  // Nothing here writes to the service.
  expect(emulator.requestLog().filter((r) => r.method !== "GET")).toEqual([]);
  await emulator.close();
});

describe("the command a hint prints", () => {
  it("is npx usersync from a checkout, usersync when that name on the PATH is this CLI", async () => {
    await withTempDir(async (dir) => {
      const checkout = await runCli(["validate"], { cwd: dir });
      expect(checkout.code).toBe(4);
      expect(logMessages(checkout.stderr)).toContain("nothing to validate: npx usersync validate FILE");

      // A global install: a `usersync` on the PATH that is a link to this very CLI.
      await mkdir(join(dir, "bin"));
      await symlink(CLI, join(dir, "bin", "usersync"));
      const global = await runCli(["validate"], {
        cwd: dir,
        env: { PATH: `${join(dir, "bin")}${delimiter}${process.env["PATH"] ?? ""}` },
      });
      expect(logMessages(global.stderr)).toContain("nothing to validate: usersync validate FILE");
      expect(logMessages(global.stderr)).not.toContain("npx");
    });
  });

  it("the demo's last line says npx usersync in a checkout", async () => {
    const demo = await runCli(["demo"]);
    expect(demo.code).toBe(0);
    expect(demo.stdout).toContain(
      "The demo organization converged. Next: npx usersync emulator, then npx usersync plan --base-url <its URL> (see README).",
    );
  }, 60_000);
});

describe("a Latin-1 file", () => {
  it("is refused with the byte that is not UTF-8 (0xE9 of é), not the one after it", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "users.csv");
      await writeFile(
        file,
        Buffer.concat([
          Buffer.from("email,id,displayName\nann@example.com,ann,Ann\n"),
          Buffer.from("rene@example.com,rene,Ren\xe9. Dupont\n", "latin1"),
        ]),
      );
      const r = await runCli(["validate", file]);
      expect(r.code).toBe(4);
      expect(r.stdout).toContain(
        `${file}:3: byte 0xE9 is not valid UTF-8 (0x2E after it does not continue a UTF-8 character); save the file as UTF-8`,
      );
      expect(r.stdout).not.toMatch(/byte 0x2E is/);
    });
  });
});

describe("a config file named usersync.yml", () => {
  it("is refused (exit 4) with what to do, not ignored; beside a usersync.yaml it is left alone", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "usersync.yml"), "source:\n  desired: users.yaml\n");
      const r = await runCli(["plan", "--base-url", emulator.url, "--desired", join(DEMO, "users.yaml")], {
        cwd: dir,
        env: { USERSYNC_TOKEN: TOKEN },
      });
      expect(r.code).toBe(4);
      expect(logMessages(r.stderr)).toContain(
        `${join(dir, "usersync.yml")}: usersync reads usersync.yaml from the current folder, not usersync.yml: rename the file to usersync.yaml, or name it with --config usersync.yml [config-file-name]`,
      );
      expect(r.stdout).toBe("");

      // Named with --config, it is read.
      const named = await runCli(["validate", "--config", "usersync.yml", join(DEMO, "users.yaml")], {
        cwd: dir,
      });
      expect(named.code).toBe(0);

      // With a usersync.yaml beside it, that one is the config, as documented.
      await writeFile(join(dir, "usersync.yaml"), "logging:\n  level: warn\n");
      const both = await runCli(["validate", join(DEMO, "users.yaml")], { cwd: dir });
      expect(both.code).toBe(0);
    });
  });
});

describe("a group name with a typo", () => {
  const desired = [
    "version: 1",
    "groups:",
    "  - id: analytics",
    "    name: Analytics",
    "users:",
    "  - email: ann@example.com",
    "    groups: [analytcs]",
    "",
  ].join("\n");

  it("validate: did you mean the declared group, and no createReferenced hint", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "users.yaml");
      await writeFile(file, desired);
      const r = await runCli(["validate", file]);
      expect(r.stdout).toContain(
        'group "analytcs" is not declared in the desired state; did you mean "analytics"? Correct the name, or declare "analytcs" if it is a group of its own [undeclared-group]',
      );
      expect(r.stdout).not.toContain("createReferenced");
    });
  });

  it("plan: did you mean the organization's group, and no createReferenced hint", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "users.yaml");
      await writeFile(file, desired.replace(/groups:\n {2}- id: analytics\n {4}name: Analytics\n/, ""));
      const r = await runCli(["plan", "--base-url", emulator.url, "--desired", file], {
        env: { USERSYNC_TOKEN: TOKEN },
      });
      expect(r.code).toBe(4);
      const messages = logMessages(r.stderr);
      expect(messages).toContain(
        "group 'analytcs' is neither declared nor in the organization; did you mean 'analytics'? Correct the name, or declare 'analytcs' in the groups file if it is a group of its own [unknown-group]",
      );
      expect(messages).not.toContain("createReferenced");

      // A name near nothing keeps the createReferenced hint.
      await writeFile(file, desired.replace("analytcs", "data-science"));
      const far = await runCli(["plan", "--base-url", emulator.url, "--desired", file], {
        env: { USERSYNC_TOKEN: TOKEN },
      });
      expect(logMessages(far.stderr)).toContain("or set policy.groups.createReferenced: true");
    });
  });
});

describe("a permission change in two steps", () => {
  it("shows the net change per group after the steps, in text and Markdown", async () => {
    const args = ["plan", "--base-url", emulator.url, "--desired", join(DEMO, "users.yaml")];
    const env = {
      USERSYNC_TOKEN: TOKEN,
      USERSYNC_PERMISSIONS_WORKSPACES: "all",
      USERSYNC_DATA_FILTERS_WORKSPACES: "all",
    };
    const text = await runCli(args, { env });
    expect(text.stdout).toContain(
      [
        "    - permissions finance  (1 group loses permissions: the desired state lists fewer)",
        "        group finance: ANALYZE, EXPORT, VIEW → ANALYZE, VIEW",
        "    = net change  (from before the first step to after the last)",
        "        group finance: EXPORT, VIEW → ANALYZE, VIEW",
      ].join("\n"),
    );
    // Only an assignee changed twice gets a net line: finance-reporting's one grant does not.
    expect(text.stdout).not.toMatch(/= net change[^\n]*\n[^\n]*finance-reporting/);

    const markdown = await runCli([...args, "--format", "markdown"], { env });
    expect(markdown.stdout).toContain(
      "| = | workspace finance | net change | group finance: EXPORT, VIEW → ANALYZE, VIEW | from before the first step to after the last |",
    );
  });
});
