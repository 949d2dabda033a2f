/**
 * The drift report and the export tell the truth (issue 39, item 5), over the built CLI against
 * the emulator: in full mode a direct EXPORT+VIEW grant made by hand to a managed person shows in
 * `plan` as drift, `apply` takes it away and a re-plan is empty, while incremental mode leaves
 * it; `export` writes a person whose login was revoked as `state: absent` (never as an SSO user
 * still in their group), lists hand-made filters only when asked and marked as not usersync's, and
 * the exported file planned back changes nothing.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorSeed } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { runCli, withTempDir } from "./run-cli.js";

const TOKEN = "truth-e2e-token";
const env = { USERSYNC_TOKEN: TOKEN };

const seed = (): EmulatorSeed => ({
  idpUsers: [
    { email: "admin@x.com", displayName: "Admin", authenticationId: "auth-admin" },
    { email: "jane@x.com", displayName: "Jane", authenticationId: "auth-jane" },
  ],
  mappings: [
    { id: "admin", authenticationId: "auth-admin", groups: [] },
    { id: "jane", authenticationId: "auth-jane", email: "jane@x.com", groups: ["sales"] },
    // Revoked: the built-in login was deleted, the mapping and its group stay.
    { id: "leaver", authenticationId: "auth-leaver", email: "leaver@x.com", groups: ["sales"] },
  ],
  groups: [{ id: "sales", name: "Sales" }],
  workspaces: [
    { id: "sales", permissions: [{ userGroup: "sales", permissions: ["VIEW"] }] },
    // Made by hand: jane's own EXPORT+VIEW on finance.
    { id: "finance", permissions: [{ user: "jane", permissions: ["EXPORT", "VIEW"] }] },
  ],
  dataFilters: [
    { workspace: "sales", id: "by-hand", title: "All regions", maql: '{label/region} = "ALL"', user: "jane" },
  ],
});

const DESIRED = `version: 1
groups:
  - id: sales
    name: Sales
    workspaces:
      sales: [VIEW]
users:
  - email: jane@x.com
    id: jane
    displayName: Jane
    groups: [sales]
`;

const config = (mode: "full" | "incremental") => `policy:
  mode: ${mode}
permissions:
  workspaces: [sales, finance]
identity:
  passwords: none
`;

describe("hand-made direct grants are drift in full mode", () => {
  let emulator: EmulatorHandle;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" }, seed: seed() });
  });
  afterAll(async () => {
    await emulator?.close();
  });
  const financeGrants = () => emulator.state().workspaces!.find((w) => w.id === "finance")!.permissions ?? [];

  it("plan shows it, apply takes it away, a re-plan is empty; incremental mode leaves it", async () => {
    await withTempDir(async (dir) => {
      const desired = join(dir, "users.yaml");
      await writeFile(desired, DESIRED);
      const run = async (mode: "full" | "incremental", ...args: string[]) => {
        const cfg = join(dir, `${mode}.yaml`);
        await writeFile(cfg, config(mode));
        return runCli([...args, "--config", cfg, "--desired", desired, "--base-url", emulator.url], { env });
      };
      const incremental = await run("incremental", "plan", "--format", "json", "--detailed-exitcode");
      expect(JSON.parse(incremental.stdout).steps.map((s: { id: string }) => s.id)).not.toContain(
        "revokeWorkspacePermissions:finance",
      );

      const plan = await run("full", "plan", "--format", "json", "--detailed-exitcode");
      expect(plan.code).toBe(2);
      const step = JSON.parse(plan.stdout).steps.find(
        (s: { id: string }) => s.id === "revokeWorkspacePermissions:finance",
      );
      expect(step).toMatchObject({
        status: "planned",
        changes: [
          {
            assignee: { type: "user", id: "jane" },
            before: { permissions: ["EXPORT", "VIEW"], hierarchy: [] },
            after: { permissions: [], hierarchy: [] },
          },
        ],
      });
      const text = await run("full", "plan");
      expect(text.stdout).toContain("1 user loses EXPORT and VIEW on finance");
      expect(text.stdout).toContain("user jane: EXPORT, VIEW → (none)");

      const apply = await run("full", "apply", "--yes");
      expect(apply.code).toBe(0);
      expect(financeGrants()).toEqual([]);
      const again = await run("full", "plan", "--detailed-exitcode");
      expect(again.code).toBe(0);
    });
  }, 120_000);
});

describe("export", () => {
  let emulator: EmulatorHandle;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" }, seed: seed() });
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it("marks the revoked person as such, lists hand-made filters only when asked, and reads back to no change", async () => {
    await withTempDir(async (dir) => {
      const out = join(dir, "org.yaml");
      const plain = await runCli(["export", "--base-url", emulator.url, "--out", out], { env });
      expect(plain.code).toBe(0);
      const yaml = await readFile(out, "utf8");
      expect(yaml).toContain(
        "  - email: leaver@x.com\n    id: leaver\n    identity: builtin\n    state: absent\n",
      );
      expect(yaml).not.toContain("external");
      expect(yaml).not.toContain("by-hand");
      expect(plain.stderr).toMatch(/1 user\(s\) whose built-in login was revoked are exported as such/);

      const withFilters = await runCli(["export", "--base-url", emulator.url, "--hand-made-filters"], {
        env,
      });
      expect(withFilters.code).toBe(0);
      expect(withFilters.stdout).toContain(
        '#   workspace "sales", user "jane": id "by-hand", title "All regions", MAQL "{label/region} = \\"ALL\\""',
      );
      expect(withFilters.stdout).toContain("# Hand-made data filters: 1, made outside usersync");

      const csv = await runCli(
        ["export", "--base-url", emulator.url, "--format", "csv", "--hand-made-filters"],
        { env },
      );
      expect(csv.code).toBe(4);
      expect(csv.stderr).toContain("--hand-made-filters lists them in a YAML comment: use --format yaml");

      const back = await runCli(
        ["plan", "--desired", out, "--base-url", emulator.url, "--detailed-exitcode"],
        {
          env,
        },
      );
      // The revoked person still holds a group: revoke means no access, so reading the export
      // back takes that away (and nothing else); the review calls it revokedWithAccess.
      expect(back.code, back.stdout).toBe(2);
      expect(back.stdout).toMatch(/People\s+1 to revoke$/m);
      expect(back.stdout).toContain("~ mapping leaver  (access revoked (no login left: ");
      expect(back.stdout).toMatch(/^ {2}Steps\s+1 to update$/m);
    });
  }, 120_000);
});
