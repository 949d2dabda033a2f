/**
 * Permission steps carried out against the emulator: grants and removals land, unmanaged grants
 * stay byte for byte, a lost answer is read back, a saved plan's steps go stale when a grant they
 * rely on changed, held-back removals are reported, and a second run plans nothing.
 */
import { describe, expect, it } from "vitest";
import { applyPlan, findStaleSteps, permissionListingForPlan } from "../../src/apply/index.js";
import type { EmulatorSeed } from "../../src/emulator/index.js";
import { permissionListing, plan as makePlan } from "../../src/plan/index.js";
import { listActualState } from "../../src/service/index.js";
import { withEmulatorClient } from "../helpers/env.js";
import { noPasswords } from "./builders.js";
import { aDesiredGroup, aPolicy, desiredOf, planAndApply } from "./scenario.js";

const seed: EmulatorSeed = {
  groups: [{ id: "sales" }, { id: "finance" }, { id: "outsiders" }],
  workspaces: [
    { id: "sales", name: "Sales" },
    {
      id: "sales-emea",
      parent: "sales",
      permissions: [
        { userGroup: "sales", permissions: ["VIEW"] },
        { userGroup: "outsiders", permissions: ["ANALYZE", "EXPORT"], hierarchy: ["VIEW"] },
      ],
    },
    { id: "finance", permissions: [{ userGroup: "sales", permissions: ["VIEW"] }] },
  ],
};
const grant = (workspace: string, permissions: string[], hierarchy: string[] = []) =>
  ({ workspace, permissions, hierarchy }) as never;
const policy = (over: { mode?: "full" | "incremental"; maxRemovals?: number; allow?: number } = {}) =>
  aPolicy({
    mode: over.mode ?? "incremental",
    permissions: {
      workspaces: ["*"],
      maxRemovals: { count: over.maxRemovals ?? 10 },
      ...(over.allow !== undefined ? { allowRemovals: over.allow } : {}),
      allowOrganizationManage: false,
    },
  });
const desired = (salesEmea: string[]) =>
  desiredOf(
    [],
    [
      aDesiredGroup({ id: "sales", workspaces: [grant("sales-emea", salesEmea)] }),
      aDesiredGroup({ id: "team", name: "Team", workspaces: [grant("sales", ["VIEW"], ["VIEW"])] }),
    ],
  );
const layout = (
  state: ReturnType<Awaited<ReturnType<typeof withEmulatorClient>>["emulator"]["state"]>,
  ws: string,
) => state.workspaces!.find((w) => w.id === ws)!.permissions ?? [];

describe("applying permission steps", () => {
  it("grants, removes (full mode) and converges; unmanaged grants stay as they were", async () => {
    const env = await withEmulatorClient({ emulator: { seed } });
    try {
      const outsiders = JSON.stringify(
        layout(env.emulator.state(), "sales-emea").filter((p) => p.userGroup === "outsiders"),
      );
      const first = await planAndApply({
        client: env.client,
        desired: desired(["VIEW", "EXPORT"]),
        policy: policy({ mode: "full" }),
      });
      expect(first.plan.steps.map((s) => s.id)).toEqual([
        "createGroup:team",
        "grantWorkspacePermissions:sales",
        "grantWorkspacePermissions:sales-emea",
        "revokeWorkspacePermissions:finance",
      ]);
      expect(first.result.counts).toMatchObject({ succeeded: 4, failed: 0 });
      const state = env.emulator.state();
      expect(layout(state, "sales")).toEqual([
        { userGroup: "team", permissions: ["VIEW"], hierarchy: ["VIEW"] },
      ]);
      expect(layout(state, "finance")).toEqual([]);
      expect(JSON.stringify(layout(state, "sales-emea").filter((p) => p.userGroup === "outsiders"))).toBe(
        outsiders,
      );
      const again = await planAndApply({
        client: env.client,
        desired: desired(["VIEW", "EXPORT"]),
        policy: policy({ mode: "full" }),
      });
      expect(again.plan.steps).toEqual([]);
    } finally {
      await env.close();
    }
  });

  it("removals over the limit are held back with the flag that allows them, grants still land", async () => {
    const env = await withEmulatorClient({ emulator: { seed } });
    try {
      const { plan, result } = await planAndApply({
        client: env.client,
        desired: desired(["EXPORT"]),
        policy: policy({ mode: "full", maxRemovals: 1 }),
      });
      const held = result.outcomes.filter((o) => o.outcome === "heldBack");
      expect(held.map((o) => o.stepId)).toEqual([
        "revokeWorkspacePermissions:finance",
        "revokeWorkspacePermissions:sales-emea",
      ]);
      expect(held[0]!.reason).toMatch(
        /permission removal limit: 2 removal\(s\), 1 allowed .*--allow-permission-removals 2/,
      );
      expect(plan.permissionGuard).toEqual({ limit: 1, wanted: 2, managedAssignments: 2 });
      expect(layout(env.emulator.state(), "sales-emea")).toContainEqual({
        userGroup: "sales",
        permissions: ["EXPORT", "VIEW"],
        hierarchy: [],
      });
      const allowed = await planAndApply({
        client: env.client,
        desired: desired(["EXPORT"]),
        policy: policy({ mode: "full", maxRemovals: 1, allow: 2 }),
      });
      expect(allowed.result.counts).toMatchObject({ succeeded: 2, heldBack: 0 });
      expect(layout(env.emulator.state(), "sales-emea")).toContainEqual({
        userGroup: "sales",
        permissions: ["EXPORT"],
        hierarchy: [],
      });
    } finally {
      await env.close();
    }
  });

  it("a grant whose every answer is lost is read back and counts as done", async () => {
    const env = await withEmulatorClient({
      emulator: { seed, faults: { loseAnswer: 1, pathPattern: /managePermissions/ } },
      client: { retries: 1 },
    });
    try {
      const d = desiredOf(
        [],
        [aDesiredGroup({ id: "sales", workspaces: [grant("sales-emea", ["VIEW", "EXPORT"])] })],
      );
      const { result } = await planAndApply({ client: env.client, desired: d, policy: policy() });
      expect(result.outcomes).toEqual([
        expect.objectContaining({
          stepId: "grantWorkspacePermissions:sales-emea",
          outcome: "succeeded",
          recovered: "readBack",
          attempts: 2,
        }),
      ]);
      const log = env.emulator.requestLog().map((e) => `${e.method} ${e.url}`);
      expect(log.slice(-1)).toEqual(["GET /api/v1/layout/workspaces/sales-emea/permissions"]);
    } finally {
      await env.close();
    }
  });

  it("a saved plan's permission step is stale once a grant it relies on changed", async () => {
    const env = await withEmulatorClient({ emulator: { seed } });
    try {
      const d = desired(["VIEW", "EXPORT"]);
      const p = policy();
      const actual = await listActualState(env.client, { permissions: permissionListing(d, p, 500) });
      const saved = makePlan({ desired: d, actual, policy: p, profile: "v1" });
      // Someone changes the sales group's grant on sales-emea in between.
      await env.client.permissions.manageWorkspacePermissions("sales-emea", [
        { assignee: { type: "userGroup", id: "sales" }, permissions: ["ANALYZE"], hierarchy: [] },
      ]);
      const listing = permissionListingForPlan(saved, 500)!;
      expect(["sales-emea", "sales", "finance"].map(listing.inScope)).toEqual([true, true, false]);
      const now = await listActualState(env.client, { permissions: listing });
      const stale = findStaleSteps(saved, now);
      expect([...stale]).toEqual(["grantWorkspacePermissions:sales-emea"]);
      const result = await applyPlan({
        plan: saved,
        client: env.client,
        concurrency: 2,
        passwords: noPasswords,
        stale,
      });
      expect(result.counts).toMatchObject({ stale: 1, succeeded: 2 });
      expect(layout(env.emulator.state(), "sales-emea")).toContainEqual({
        userGroup: "sales",
        permissions: ["ANALYZE"],
        hierarchy: [],
      });
    } finally {
      await env.close();
    }
  });
});
