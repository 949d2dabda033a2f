/**
 * Workspace permissions end to end, over the built CLI against the emulator: onboard people into
 * groups that carry workspace access, change a team's access, take one away in full mode (held
 * back by permissions.maxRemovals, then allowed), survive a kill -9 mid-apply, converge, and a
 * re-plan shows nothing. The grants of assignees the desired state does not manage are unchanged
 * byte for byte, and every request of these runs is an operation of the official OpenAPI with a
 * body of its schema. Also: the README's "Changing a team's access" excerpt is a real run's text.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSeedFile, startEmulator, type EmulatorSeed } from "../../src/emulator/index.js";
import type { EmulatorHandle, RequestLogEntry } from "../../src/emulator/types.js";
import { operationProblems, pathOf, validateAgainst } from "../helpers/openapi.js";
import { ROOT, runCli, startCli, withTempDir } from "./run-cli.js";

const TOKEN = "perm-e2e-token";
const env = { USERSYNC_TOKEN: TOKEN };

const seed: EmulatorSeed = {
  idpUsers: [{ email: "admin@x.com", displayName: "Admin", authenticationId: "auth-admin" }],
  mappings: [{ id: "admin", authenticationId: "auth-admin", groups: ["auditors"] }],
  groups: [{ id: "auditors", name: "Auditors" }],
  workspaces: [
    { id: "company", permissions: [{ userGroup: "auditors", permissions: ["VIEW"], hierarchy: ["VIEW"] }] },
    { id: "sales", parent: "company" },
    { id: "sales-emea", parent: "sales", permissions: [{ user: "admin", permissions: ["MANAGE"] }] },
    { id: "finance", parent: "company" },
  ],
  organizationPermissions: [{ userGroup: "auditors", permissions: ["SELF_CREATE_TOKEN"] }],
};

const CONFIG = `permissions:
  workspaces: [sales*, finance]
  maxRemovals: 1
identity:
  passwords: none
`;

/** Sales sees sales and below; EMEA analyses and exports on sales-emea; finance analyses finance. */
function desired(o: { emeaExport?: boolean; financeForSales?: boolean } = {}): string {
  const emea = o.emeaExport === false ? "[VIEW, ANALYZE]" : "[VIEW, ANALYZE, EXPORT]";
  const people = Array.from({ length: 12 }, (_, i) => {
    const team = ["sales", "sales-emea", "finance"][i % 3]!;
    return `  - email: p${i}@x.com\n    id: p${i}\n    groups: [${team}]\n`;
  }).join("");
  return `version: 1
groups:
  - id: sales
    workspaces:
      sales: { permissions: [VIEW], hierarchy: [VIEW] }
${o.financeForSales === false ? "" : "      finance: [VIEW]\n"}  - id: sales-emea
    parents: [sales]
    workspaces:
      sales-emea: ${emea}
  - id: finance
    workspaces:
      finance: [VIEW, ANALYZE, EXPORT]
users:
${people}`;
}

/** What the emulator says of the assignees the desired state does not manage, as JSON text. */
const unmanaged = (emu: EmulatorHandle): string =>
  JSON.stringify({
    grants: emu
      .state()
      .workspaces!.map((w) => [
        w.id,
        (w.permissions ?? []).filter((p) => p.user === "admin" || p.userGroup === "auditors"),
      ]),
    organization: emu.state().organizationPermissions,
  });

const grantsOf = (emu: EmulatorHandle, ws: string) =>
  emu.state().workspaces!.find((w) => w.id === ws)!.permissions ?? [];

/** The official request schema of a write, by its path. */
function bodySchema(e: RequestLogEntry): { schema: string; items: boolean } | undefined {
  const path = new URL(e.url, "http://x").pathname;
  if (path.endsWith("/managePermissions"))
    return path.includes("/organization/")
      ? { schema: "OrganizationPermissionAssignment", items: true }
      : { schema: "WorkspacePermissionAssignment", items: true };
  if (path.startsWith("/api/v1/entities/userGroups"))
    return { schema: "JsonApiUserGroupInDocument", items: false };
  if (path.startsWith("/api/v1/entities/users")) return { schema: "JsonApiUserInDocument", items: false };
  return undefined;
}

function requestProblems(log: RequestLogEntry[]): string[] {
  return log.flatMap((e) => {
    const problems = operationProblems(e.method, e.url);
    const body = e.method === "POST" || e.method === "PUT" ? bodySchema(e) : undefined;
    if (body) {
      const values = body.items ? (e.body as unknown[]) : [e.body];
      problems.push(
        ...values.flatMap((v) => validateAgainst("metadata", body.schema, v).map((p) => `${e.url}: ${p}`)),
      );
    }
    return problems;
  });
}

describe("permissions over the built CLI", () => {
  let emulator: EmulatorHandle;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" }, seed });
  });
  afterAll(() => emulator.close());

  it("onboards, changes access, removes in full mode (held, then allowed), survives kill -9, converges", async () => {
    await withTempDir(async (dir) => {
      const config = join(dir, "usersync.yaml");
      const file = join(dir, "users.yaml");
      await writeFile(config, CONFIG);
      const run = (...args: string[]) =>
        runCli([...args, "--config", config, "--desired", file, "--base-url", emulator.url], { env });
      const before = unmanaged(emulator);

      // 1. Onboarding: groups with their access, people into them; grants wait for their groups.
      await writeFile(file, desired());
      const onboard = await run("apply", "--yes");
      expect(onboard.code, onboard.stderr).toBe(0);
      expect(onboard.stdout).toMatch(
        /^Done: 12 people \(12 added\), 3 groups \(3 added\) and 4 permission changes \(4 granted\)$/m,
      );
      expect(grantsOf(emulator, "sales-emea")).toEqual([
        { user: "admin", permissions: ["MANAGE"], hierarchy: [] },
        { userGroup: "sales-emea", permissions: ["ANALYZE", "EXPORT", "VIEW"], hierarchy: [] },
      ]);

      // 2. A team's access changes: EMEA loses EXPORT (a listed workspace is exact in any mode).
      await writeFile(file, desired({ emeaExport: false }));
      const change = await run("apply", "--yes");
      expect(change.code, change.stderr).toBe(0);
      expect(change.stdout).toContain("  Permissions       1 group loses EXPORT on sales-emea\n");
      expect(grantsOf(emulator, "sales-emea")).toContainEqual({
        userGroup: "sales-emea",
        permissions: ["ANALYZE", "VIEW"],
        hierarchy: [],
      });

      // 3. Full mode: sales no longer lists finance; with EMEA's VIEW also gone, two removals: over maxRemovals 1.
      await writeFile(
        file,
        desired({ emeaExport: false, financeForSales: false }).replace(
          "sales-emea: [VIEW, ANALYZE]",
          "sales-emea: [ANALYZE]",
        ),
      );
      const held = await run("apply", "--yes", "--mode", "full");
      expect(held.code).toBe(3);
      expect(held.stdout).toContain(
        "every removal is held back. Allow them for one run with --allow-permission-removals 2",
      );
      expect(grantsOf(emulator, "finance")).toContainEqual({
        userGroup: "sales",
        permissions: ["VIEW"],
        hierarchy: [],
      });

      // 4. Allowed, and killed with SIGKILL mid-apply: the next run converges.
      emulator.setFaults({ latencyMs: 60, pathPattern: /managePermissions/ });
      const writesBefore = emulator.requestLog().filter((e) => e.url.endsWith("/managePermissions")).length;
      const args = [
        "apply",
        "--yes",
        "--mode",
        "full",
        "--allow-permission-removals",
        "2",
        "--config",
        config,
        "--desired",
        file,
        "--base-url",
        emulator.url,
      ];
      const { child, done } = startCli(args, { env: { ...env, USERSYNC_EXECUTION_CONCURRENCY: "1" } });
      while (emulator.requestLog().filter((e) => e.url.endsWith("/managePermissions")).length <= writesBefore)
        await new Promise((r) => setTimeout(r, 5));
      child.kill("SIGKILL");
      expect((await done).signal).toBe("SIGKILL");
      emulator.setFaults({});
      const rerun = await run("apply", "--yes", "--mode", "full", "--allow-permission-removals", "2");
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(grantsOf(emulator, "finance")).toEqual([
        { userGroup: "finance", permissions: ["ANALYZE", "EXPORT", "VIEW"], hierarchy: [] },
      ]);

      // 5. Converged: nothing left, in either mode; the unmanaged grants are as they were.
      for (const mode of ["full", "incremental"]) {
        const again = await run("plan", "--mode", mode, "--detailed-exitcode");
        expect(again.code, again.stdout).toBe(0);
      }
      expect(unmanaged(emulator)).toBe(before);

      // 6. Every request of these runs is an operation of the official spec, with a body of its schema.
      const log = emulator.requestLog();
      const used = new Set(
        log.map((e) => `${e.method} ${pathOf(new URL(e.url, "http://x").pathname)?.template}`),
      );
      expect(used).toContain("POST /api/v1/actions/workspaces/{workspaceId}/managePermissions");
      expect(used).toContain("GET /api/v1/entities/workspaces");
      expect(requestProblems(log)).toEqual([]);
    });
    // Eight runs of the built CLI and a kill -9: more than the default 30 s on a shared machine.
  }, 120_000);

  it("apply --plan carries a saved plan's permission steps out, and reports one stale when its grant changed", async () => {
    const own = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" }, seed });
    try {
      await withTempDir(async (dir) => {
        const config = join(dir, "usersync.yaml");
        const file = join(dir, "users.yaml");
        const saved = join(dir, "plan.json");
        await writeFile(config, CONFIG);
        await writeFile(file, desired());
        const base = ["--config", config, "--base-url", own.url];
        // Groups and people first (permissions.workspaces unset: access left alone), so the saved plan has only permission steps.
        const bare = join(dir, "bare.yaml");
        await writeFile(bare, "identity:\n  passwords: none\n");
        const people = await runCli(
          ["apply", "--yes", "--desired", file, "--config", bare, "--base-url", own.url],
          { env },
        );
        expect(people.code, people.stderr).toBe(0);
        const made = await runCli(["plan", "--desired", file, "--out", saved, ...base], { env });
        expect(made.code, made.stderr).toBe(0);
        const steps = (JSON.parse(await readFile(saved, "utf8")) as { steps: Array<{ id: string }> }).steps;
        expect(steps.map((x) => x.id)).toEqual([
          "grantWorkspacePermissions:finance",
          "grantWorkspacePermissions:sales",
          "grantWorkspacePermissions:sales-emea",
        ]);
        // Someone gives the finance group a grant on finance meanwhile: that step is stale.
        await fetch(`${own.url}/api/v1/actions/workspaces/finance/managePermissions`, {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify([
            { assigneeIdentifier: { id: "finance", type: "userGroup" }, permissions: ["VIEW"] },
          ]),
        });
        const report = join(dir, "report.json");
        const applied = await runCli(["apply", "--yes", "--plan", saved, "--report", report, ...base], {
          env,
        });
        expect(applied.code).toBe(3);
        const r = JSON.parse(await readFile(report, "utf8")) as {
          summary: { permissions: { granted: number; revoked: number } };
          steps: Array<{ stepId: string; outcome: string }>;
        };
        expect(r.steps.map((x) => [x.stepId, x.outcome])).toEqual([
          ["grantWorkspacePermissions:finance", "stale"],
          ["grantWorkspacePermissions:sales", "succeeded"],
          ["grantWorkspacePermissions:sales-emea", "succeeded"],
        ]);
        expect(r.summary.permissions).toEqual({ granted: 2, revoked: 0 });
        expect(grantsOf(own, "finance")).toEqual([
          { userGroup: "finance", permissions: ["VIEW"], hierarchy: [] },
        ]);
      });
    } finally {
      await own.close();
    }
  });

  it("the README's 'Changing a team's access' excerpt is what the demo prints", async () => {
    const demo = await startEmulator({
      port: 0,
      tokens: { [TOKEN]: "admin" },
      seed: await loadSeedFile(join(ROOT, "fixtures", "demo", "organization.yaml")),
    });
    try {
      await withTempDir(async (dir) => {
        const users = await readFile(join(ROOT, "fixtures", "demo", "users.yaml"), "utf8");
        const common = ["--base-url", demo.url];
        const scoped = {
          ...env,
          USERSYNC_PERMISSIONS_WORKSPACES: "all",
          USERSYNC_DATA_FILTERS_WORKSPACES: "all",
          USERSYNC_IDENTITY_PASSWORDS: "none",
        };
        const applied = await runCli(
          ["apply", "--yes", "--desired", join(ROOT, "fixtures", "demo", "users.yaml"), ...common],
          { env: scoped },
        );
        expect(applied.code, applied.stderr).toBe(0);
        const changed = join(dir, "team-change.yaml");
        await writeFile(
          changed,
          users.replace("sales-emea: [VIEW, ANALYZE, EXPORT]", "sales-emea: [VIEW, ANALYZE]"),
        );
        const plan = await runCli(["plan", "--desired", changed, ...common], { env: scoped });
        const readme = await readFile(join(ROOT, "README.md"), "utf8");
        const excerpt = /### Changing a team's access[\s\S]*?```text\n([\s\S]*?)```/.exec(readme)?.[1];
        expect(excerpt).toBeDefined();
        let from = 0;
        for (const part of excerpt!.split("...\n")) {
          const at = plan.stdout.indexOf(part, from);
          expect(at, `${part}\n--- in ---\n${plan.stdout}`).toBeGreaterThanOrEqual(0);
          from = at + part.length;
        }
      });
    } finally {
      await demo.close();
    }
  });
});
