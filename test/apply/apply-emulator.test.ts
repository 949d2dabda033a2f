import { describe, expect, it } from "vitest";
import { applyPlan, buildApplyReport, exitCodeForApply, findStaleSteps } from "../../src/apply/index.js";
import { parsePlan, plan as makePlan, serializePlan } from "../../src/plan/index.js";
import type { StepOutcome } from "../../src/apply/index.js";
import type { Step } from "../../src/plan/types.js";
import { createClient, listActualState } from "../../src/service/index.js";
import type { ServiceClient } from "../../src/service/types.js";
import { withEmulatorClient } from "../helpers/env.js";
import { aPlan, groupStep, newUserSteps, noPasswords } from "./builders.js";
import { aDesiredGroup, aDesiredUser, aPolicy, desiredOf, planAndApply } from "./scenario.js";

const byId = (outcomes: StepOutcome[]): Record<string, StepOutcome> =>
  Object.fromEntries(outcomes.map((o) => [o.stepId, o]));

/** The token is revoked after `writes` write calls: later writes go out with a token the service rejects. */
function revokedAfter(good: ServiceClient, revoked: ServiceClient, writes: number): ServiceClient {
  let n = 0;
  return new Proxy(good, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== "function") return value;
      if (typeof prop === "string" && /^(create|update|delete)/.test(prop)) {
        return (...args: unknown[]) => {
          const via = n++ < writes ? target : revoked;
          return (Reflect.get(via, prop) as (...a: unknown[]) => unknown).apply(via, args);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}

describe("apply against the emulator", () => {
  it("revokes credentials by the email as the IdP stores it, not the lower-cased step target", async () => {
    // The real service may match the path case-sensitively; a 404 would read as "already gone".
    const env = await withEmulatorClient({
      emulator: {
        seed: {
          idpUsers: [{ email: "Old.User@Example.com", displayName: "Old", authenticationId: "auth-old" }],
          mappings: [{ id: "old", authenticationId: "auth-old", groups: [] }],
        },
      },
    });
    try {
      const desired = desiredOf([
        aDesiredUser({ email: "old.user@example.com", id: "old", state: "absent" }),
      ]);
      const { plan, result } = await planAndApply({
        client: env.client,
        desired,
        policy: aPolicy({ maxDeletes: { count: 1 } }),
      });
      expect(plan.steps.map((s) => s.id)).toEqual(["deleteCredentials:old.user@example.com"]);
      expect(result.outcomes[0]).toMatchObject({ outcome: "succeeded" });
      expect(result.outcomes[0]?.recovered).toBeUndefined();
      const deletes = env.emulator.requestLog().filter((r) => r.method === "DELETE");
      expect(deletes.map((r) => decodeURIComponent(r.url))).toEqual([
        "/api/v1/auth/users/Old.User@Example.com",
      ]);
      expect(env.emulator.state().idpUsers).toEqual([]);
    } finally {
      await env.close();
    }
  });

  it("creates groups, credentials and mappings; a second run plans nothing", async () => {
    const env = await withEmulatorClient();
    try {
      const desired = desiredOf(
        [
          aDesiredUser({ email: "Jane@a.com", id: "jane", displayName: "Jane", groups: ["sales"] }),
          aDesiredUser({ email: "bob@a.com", id: "bob", displayName: "Bob", groups: [] }),
        ],
        [aDesiredGroup({ id: "sales", name: "Sales" })],
      );
      const first = await planAndApply({ client: env.client, desired, policy: aPolicy() });
      expect(first.result.counts).toMatchObject({ succeeded: first.plan.steps.length, failed: 0 });
      expect(exitCodeForApply(first.result)).toBe(0);
      const state = env.emulator.state();
      const jane = state.idpUsers.find((u) => u.email.toLowerCase() === "jane@a.com");
      expect(state.mappings.find((m) => m.id === "jane")).toMatchObject({
        authenticationId: jane?.authenticationId,
        groups: ["sales"],
      });
      const second = await planAndApply({ client: env.client, desired, policy: aPolicy() });
      expect(second.plan.steps).toEqual([]);
    } finally {
      await env.close();
    }
  });

  it("a credentials create that fails for good skips its mapping; unrelated steps succeed; the report names both", async () => {
    const env = await withEmulatorClient({
      emulator: {
        seed: { mappings: [{ id: "bob", groups: [] }] },
        faults: { error500: 1, pathPattern: /^\/api\/v1\/auth\/users$/ },
      },
      client: { retries: 1 },
    });
    try {
      const bob = { id: "bob", groups: [] };
      const update: Step = {
        id: "updateMapping:bob",
        kind: "updateMapping",
        target: "bob",
        dependsOn: ["createGroup:sales"],
        reason: "t",
        touches: [],
        status: "planned",
        before: bob,
        after: { ...bob, groups: ["sales"] },
      };
      const plan = aPlan([groupStep("sales"), ...newUserSteps("jane@a.com", "jane"), update]);
      const result = await applyPlan({ plan, client: env.client, concurrency: 2, passwords: noPasswords });
      const o = byId(result.outcomes);
      expect(o["createCredentials:jane@a.com"]).toMatchObject({
        outcome: "failed",
        attempts: 2,
        error: { status: 500 },
      });
      expect(o["createMapping:jane"]).toMatchObject({
        outcome: "skipped",
        reason: "dependency createCredentials:jane@a.com failed",
      });
      expect(o["createGroup:sales"]?.outcome).toBe("succeeded");
      expect(o["updateMapping:bob"]?.outcome).toBe("succeeded");
      expect(env.emulator.state().mappings.find((m) => m.id === "bob")?.groups).toEqual(["sales"]);
      expect(env.emulator.state().mappings.some((m) => m.id === "jane")).toBe(false);
      expect(result.retries).toBe(1);
      const report = buildApplyReport(result, plan);
      expect(report.exitCode).toBe(1);
      const notOk = report.steps.filter((s) => s.outcome !== "succeeded").map((s) => [s.stepId, s.outcome]);
      expect(notOk).toEqual([
        ["createCredentials:jane@a.com", "failed"],
        ["createMapping:jane", "skipped"],
      ]);
    } finally {
      await env.close();
    }
  });

  it.each([
    { status: 401, token: "revoked-token" },
    { status: 403, token: "forbidden-token" },
  ])(
    "a $status midway stops new steps; running ones finish; the report says so",
    async ({ status, token }) => {
      const env = await withEmulatorClient({ emulator: { forbiddenTokens: ["forbidden-token"] } });
      const revoked = await createClient({
        baseUrl: env.emulator.url,
        token,
        profile: "v1",
        requestsPerSecond: 0,
        sleep: async () => {},
      });
      try {
        const client = revokedAfter(env.client, revoked, 2);
        const plan = aPlan(["g1", "g2", "g3", "g4", "g5"].map((g) => groupStep(g)));
        const result = await applyPlan({ plan, client, concurrency: 1, passwords: noPasswords });
        expect(result.outcomes.map((o) => o.outcome)).toEqual([
          "succeeded",
          "succeeded",
          "failed",
          "skipped",
          "skipped",
        ]);
        expect(result.outcomes[2]?.error?.status).toBe(status);
        expect(result.stoppedBy).toBe("fatal");
        expect(env.emulator.state().groups.map((g) => g.id)).toEqual(["g1", "g2"]);
        const report = buildApplyReport(result, plan);
        expect(report).toMatchObject({ exitCode: 1, stoppedBy: "fatal" });
        expect(report.stopReason).toMatch(new RegExp(`fatal error: POST .* answered ${status}`));
        expect(report.steps[4]?.reason).toMatch(/not started: the run stopped/);
      } finally {
        await revoked.close();
        await env.close();
      }
    },
  );

  it("over maxDeletes: creates and updates are applied, deletions held back (exit 3)", async () => {
    const people = Array.from({ length: 6 }, (_, i) => `p${i}`);
    const env = await withEmulatorClient({
      emulator: {
        seed: {
          idpUsers: people.map((p) => ({
            email: `${p}@a.com`,
            displayName: p,
            authenticationId: `auth-${p}`,
          })),
          mappings: people.map((p) => ({ id: p, authenticationId: `auth-${p}`, groups: [] })),
        },
      },
    });
    try {
      // Full mode, a file listing only p0 (renamed) and a newcomer: p1..p5 would be deleted.
      const desired = desiredOf([
        aDesiredUser({ email: "p0@a.com", id: "p0", displayName: "P Zero", groups: [] }),
        aDesiredUser({ email: "new@a.com", id: "new", displayName: "New", groups: [] }),
      ]);
      const policy = aPolicy({ mode: "full", deletions: "remove", maxDeletes: { count: 2 } });
      const { plan, result } = await planAndApply({ client: env.client, desired, policy });
      expect(result.counts.heldBack).toBeGreaterThan(0);
      expect(result.counts.failed + result.counts.skipped).toBe(0);
      expect(exitCodeForApply(result)).toBe(3);
      const heldBack = result.outcomes.filter((o) => o.outcome === "heldBack");
      expect(heldBack.every((o) => o.kind.startsWith("delete"))).toBe(true);
      expect(heldBack.every((o) => o.attempts === 0)).toBe(true);
      const state = env.emulator.state();
      expect(state.idpUsers.map((u) => u.email).sort()).toEqual(
        [...people.map((p) => `${p}@a.com`), "new@a.com"].sort(),
      );
      expect(state.idpUsers.find((u) => u.email === "p0@a.com")?.displayName).toBe("P Zero");
      // The token's owner (mapped by the emulator, protected as the caller) is never deleted.
      expect(state.mappings.map((m) => m.id).sort()).toEqual(["admin", ...people, "new"].sort());
      expect(env.emulator.requestLog().some((r) => r.method === "DELETE")).toBe(false);
      expect(plan.counts.heldBack).toBe(heldBack.length);
    } finally {
      await env.close();
    }
  });

  it("a create meeting 400 'user already exists' reads the user back and feeds its authenticationId on", async () => {
    const env = await withEmulatorClient({
      emulator: {
        seed: { idpUsers: [{ email: "jane@a.com", displayName: "jane", authenticationId: "auth-jane" }] },
        faults: { duplicateIdpAs400: true },
      },
    });
    try {
      const result = await applyPlan({
        plan: aPlan(newUserSteps("jane@a.com", "jane")),
        client: env.client,
        concurrency: 2,
        passwords: noPasswords,
      });
      expect(result.outcomes.map((o) => [o.outcome, o.recovered])).toEqual([
        ["succeeded", "exists"],
        ["succeeded", undefined],
      ]);
      expect(env.emulator.state().mappings.find((m) => m.id === "jane")?.authenticationId).toBe("auth-jane");
    } finally {
      await env.close();
    }
  });

  it("a saved plan is applied exactly: steps whose objects changed since are stale (exit 3), the rest go on", async () => {
    const env = await withEmulatorClient({
      emulator: {
        seed: {
          idpUsers: ["amy", "bo"].map((p) => ({
            email: `${p}@a.com`,
            displayName: p,
            authenticationId: `auth-${p}`,
          })),
          mappings: ["amy", "bo"].map((p) => ({ id: p, authenticationId: `auth-${p}`, groups: [] })),
        },
      },
    });
    try {
      const desired = desiredOf([
        aDesiredUser({ email: "amy@a.com", id: "amy", displayName: "Amy", groups: [] }),
        aDesiredUser({ email: "bo@a.com", id: "bo", displayName: "Bo", groups: [] }),
      ]);
      const saved = serializePlan(
        makePlan({
          desired,
          actual: await listActualState(env.client),
          policy: aPolicy(),
          profile: env.client.profile,
        }),
      );
      // Someone renames bo after the plan was saved.
      await env.client.updateIdpUser({ email: "bo@a.com", displayName: "Robert" });
      const plan = parsePlan(saved, "plan.json");
      const stale = findStaleSteps(plan, await listActualState(env.client));
      // Every step that relies on bo's credentials is stale; amy's are not.
      const reliesOnBo = plan.steps.filter((st) => st.touches.includes("idp:bo@a.com")).map((st) => st.id);
      expect(reliesOnBo).toContain("updateCredentials:bo@a.com");
      expect([...stale].sort()).toEqual(reliesOnBo.sort());
      const result = await applyPlan({
        plan,
        client: env.client,
        concurrency: 2,
        passwords: noPasswords,
        stale,
      });
      for (const o of result.outcomes)
        expect(o.outcome).toBe(reliesOnBo.includes(o.stepId) ? "stale" : "succeeded");
      expect(result.counts.succeeded).toBeGreaterThan(0);
      expect(exitCodeForApply(result)).toBe(3);
      expect(env.emulator.state().idpUsers.map((u) => u.displayName)).toEqual(["Amy", "Robert"]);
    } finally {
      await env.close();
    }
  });
});

describe("listActualState", () => {
  it("reads a 404 on the IdP listing as no built-in identity provider; other failures still throw", async () => {
    const env = await withEmulatorClient({
      emulator: {
        builtinIdp: false,
        seed: { mappings: [{ id: "ann", authenticationId: "sub-ann", groups: [] }] },
      },
    });
    try {
      const actual = await listActualState(env.client);
      expect(actual.builtinIdp).toBe(false);
      expect(actual.idpUsers).toEqual([]);
      expect(actual.mappings.map((m) => m.id)).toEqual(["admin", "ann"]);
    } finally {
      await env.close();
    }
    const failing = await withEmulatorClient({
      emulator: { faults: { pathPattern: /^\/api\/v1\/auth\//, error500: 1 } },
      client: { retries: 0 },
    });
    try {
      await expect(listActualState(failing.client)).rejects.toThrow(/500/);
    } finally {
      await failing.close();
    }
  });
});
