/**
 * A property of permission plans, applied to the emulator: whatever grants the organization has
 * and whatever the desired state asks, in either mode and with or without a scope, one plan and
 * apply reach it (the managed assignees hold exactly what is listed on in-scope workspaces, and
 * in full mode nothing else in scope), the next plan is empty, and every grant outside the
 * managed assignees or the scope is unchanged.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { startEmulator, type EmulatorSeed } from "../../src/emulator/index.js";
import { WORKSPACE_PERMISSIONS } from "../../src/permissions.js";
import { permissionListing, plan } from "../../src/plan/index.js";
import { createClient, listActualState } from "../../src/service/index.js";
import { createLogger } from "../../src/logging.js";
import { noPasswords } from "./builders.js";
import { applyPlan } from "../../src/apply/index.js";
import { aDesiredGroup, aPolicy, desiredOf } from "./scenario.js";

const WORKSPACES = ["w1", "w2", "w3"];
const GROUPS = ["g1", "g2", "g3"];
const perms = fc.subarray([...WORKSPACE_PERMISSIONS].slice(-4), { minLength: 0 });
const grant = fc.record({ permissions: perms, hierarchy: fc.subarray(["VIEW", "ANALYZE"]) });
/** For each group × workspace: nothing, or a grant. */
const grants = fc.array(fc.option(grant, { nil: undefined }), {
  minLength: GROUPS.length * WORKSPACES.length,
  maxLength: GROUPS.length * WORKSPACES.length,
});
const caseArb = fc.record({
  actual: grants,
  desired: grants,
  /** Per group: does its entry carry `workspaces` (managed)? */
  managed: fc.array(fc.boolean(), { minLength: GROUPS.length, maxLength: GROUPS.length }),
  mode: fc.constantFrom<"incremental" | "full">("incremental", "full"),
  scope: fc.constantFrom<string[]>(["*"], ["w1", "w2"]),
});

const at = (g: number, w: number) => g * WORKSPACES.length + w;

describe("permission plans against the emulator", () => {
  it("reach the desired grants in one apply, re-plan empty, and leave the rest as it was", async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const seed: EmulatorSeed = {
          groups: GROUPS.map((id) => ({ id })),
          workspaces: WORKSPACES.map((id, w) => ({
            id,
            permissions: GROUPS.flatMap((g, gi) => {
              const x = c.actual[at(gi, w)];
              return x ? [{ userGroup: g, permissions: x.permissions, hierarchy: x.hierarchy }] : [];
            }),
          })),
        };
        const emulator = await startEmulator({ seed });
        const client = await createClient({
          baseUrl: emulator.url,
          token: "dev-token",
          profile: "v1",
          requestsPerSecond: 0,
          logger: createLogger({ level: "silent" }),
        });
        try {
          const desired = desiredOf(
            [],
            GROUPS.map((id, gi) =>
              aDesiredGroup({
                id,
                ...(c.managed[gi]
                  ? {
                      workspaces: WORKSPACES.flatMap((workspace, w) => {
                        const x = c.desired[at(gi, w)];
                        return x ? [{ workspace, ...x } as never] : [];
                      }),
                    }
                  : {}),
              }),
            ),
          );
          // Only listed workspaces in scope are checked at plan time; out-of-scope ones are dropped here.
          for (const g of desired.groups)
            if (g.workspaces)
              g.workspaces = g.workspaces.filter((x) => c.scope[0] === "*" || c.scope.includes(x.workspace));
          const policy = aPolicy({
            mode: c.mode,
            permissions: {
              workspaces: c.scope,
              maxRemovals: { percent: 100 },
              allowOrganizationManage: false,
            },
          });
          const list = () =>
            listActualState(client, { permissions: permissionListing(desired, policy, 500) });
          const before = emulator.state().workspaces!;
          const first = plan({ desired, actual: await list(), policy, profile: "v1" });
          const result = await applyPlan({ plan: first, client, concurrency: 4, passwords: noPasswords });
          expect(result.counts.failed).toBe(0);
          const again = plan({ desired, actual: await list(), policy, profile: "v1" });
          expect(again.steps).toEqual([]);
          const after = emulator.state().workspaces!;
          const inScope = (w: string) => c.scope[0] === "*" || c.scope.includes(w);
          for (const [w, ws] of after.entries()) {
            const untouched = (p: { userGroup?: string }) =>
              !c.managed[GROUPS.indexOf(p.userGroup ?? "")] || !inScope(ws.id);
            expect((ws.permissions ?? []).filter(untouched)).toEqual(
              (before[w]!.permissions ?? []).filter(untouched),
            );
            if (c.mode === "full" && inScope(ws.id))
              for (const p of ws.permissions ?? []) {
                const gi = GROUPS.indexOf(p.userGroup ?? "");
                if (c.managed[gi]) expect(c.desired[at(gi, w)]).toBeDefined();
              }
          }
        } finally {
          await client.close();
          await emulator.close();
        }
      }),
      { numRuns: 40 },
    );
  });
});
