import { describe, expect, it } from "vitest";
import { applyPlan, exitCodeForApply } from "../../src/apply/index.js";
import type { StepOutcome } from "../../src/apply/index.js";
import { SafetyRefusal } from "../../src/errors.js";
import type { Step } from "../../src/plan/types.js";
import { aPlan, deleteCredentialsStep, groupStep, newUserSteps, noPasswords } from "./builders.js";
import { createFakeClient } from "./fake-client.js";

const byId = (outcomes: StepOutcome[]): Record<string, StepOutcome> =>
  Object.fromEntries(outcomes.map((o) => [o.stepId, o]));

describe("applyPlan scheduling", () => {
  it("creates groups, credentials and mappings, passing the new authenticationId to the mapping", async () => {
    const client = createFakeClient();
    const plan = aPlan([groupStep("sales"), ...newUserSteps("jane@example.com", "jane", ["sales"])]);
    const result = await applyPlan({ plan, client, concurrency: 4, passwords: noPasswords });
    expect(result.counts.succeeded).toBe(3);
    expect(exitCodeForApply(result)).toBe(0);
    const auth = client.idp.get("jane@example.com")?.authenticationId;
    expect(auth).toMatch(/^auth-/);
    expect(client.mappings.get("jane")).toEqual({ id: "jane", authenticationId: auth, groups: ["sales"] });
    expect(result.outcomes.map((o) => o.stepId)).toEqual(plan.steps.map((s) => s.id));
    expect(result.outcomes.every((o) => o.attempts === 1)).toBe(true);
    // The mapping ran only after the credentials create it depends on.
    expect(client.completed.indexOf("createIdpUser:jane@example.com")).toBeLessThan(
      client.completed.indexOf("createMapping:jane"),
    );
  });

  it("fails a credentials create the service answers without an authenticationId, and creates no mapping", async () => {
    const fake = createFakeClient();
    // A service whose answer, and read-back, lack the authenticationId (the spec makes it optional).
    const client = {
      ...fake,
      createIdpUser: async (user: { email: string; displayName: string }) => {
        fake.idp.set(user.email, { ...user, authenticationId: "" });
        return { status: "created" as const, value: { ...user, authenticationId: "" } };
      },
    };
    const plan = aPlan(newUserSteps("jane@example.com", "jane", []));
    const result = await applyPlan({ plan, client, concurrency: 4, passwords: noPasswords });
    const o = byId(result.outcomes);
    expect(o["createCredentials:jane@example.com"]?.outcome).toBe("failed");
    expect(o["createCredentials:jane@example.com"]?.error?.message).toContain(
      "IdP user jane@example.com exists, but the service gave no authenticationId for it",
    );
    expect(o["createMapping:jane"]?.outcome).toBe("skipped");
    expect(fake.mappings.size).toBe(0);
    expect(exitCodeForApply(result)).toBe(1);
  });

  it("starts a step as soon as its own dependencies succeeded, while an unrelated step is still running", async () => {
    const client = createFakeClient();
    let release!: () => void;
    client.gates.set("createGroup:slow", new Promise<void>((r) => (release = r)));
    const plan = aPlan([groupStep("slow"), groupStep("b"), groupStep("c", ["b"])]);
    // "slow" is held until b and c are done: a level-by-level scheduler would never get there.
    const result = await applyPlan({
      plan,
      client,
      concurrency: 4,
      passwords: noPasswords,
      onProgress: (p) => p.counts.succeeded === 2 && release(),
    });
    expect(result.counts.succeeded).toBe(3);
    expect(client.completed).toEqual(["createGroup:b", "createGroup:c", "createGroup:slow"]);
  });

  it("skips the dependents of a failed step, names the dependency, and goes on with unrelated steps", async () => {
    const client = createFakeClient();
    client.failWith.set("createIdpUser:bad@example.com", 400);
    const plan = aPlan([...newUserSteps("bad@example.com", "bad"), ...newUserSteps("ok@example.com", "ok")]);
    const result = await applyPlan({ plan, client, concurrency: 2, passwords: noPasswords });
    const o = byId(result.outcomes);
    expect(o["createCredentials:bad@example.com"]).toMatchObject({
      outcome: "failed",
      error: { status: 400, traceId: "trace-1" },
    });
    expect(o["createCredentials:bad@example.com"]?.error?.message).toContain("scripted failure");
    expect(o["createMapping:bad"]).toMatchObject({ outcome: "skipped", cause: "failed", attempts: 0 });
    expect(o["createMapping:bad"]?.reason).toBe("dependency createCredentials:bad@example.com failed");
    expect(o["createMapping:ok"]?.outcome).toBe("succeeded");
    expect(client.mappings.has("ok")).toBe(true);
    expect(client.mappings.has("bad")).toBe(false);
    expect(exitCodeForApply(result)).toBe(1);
  });

  it("skips transitively and names the root cause", async () => {
    const client = createFakeClient();
    client.failWith.set("createGroup:a", 500);
    const plan = aPlan([groupStep("a"), groupStep("b", ["a"]), groupStep("c", ["b"])]);
    const result = await applyPlan({ plan, client, concurrency: 2, passwords: noPasswords });
    const c = byId(result.outcomes)["createGroup:c"];
    expect(c).toMatchObject({ outcome: "skipped", cause: "failed" });
    expect(c?.reason).toBe("dependency createGroup:b was skipped; root cause: createGroup:a failed");
    expect(result.counts).toEqual({ succeeded: 0, failed: 1, skipped: 2, stale: 0, heldBack: 0 });
  });

  it("stops starting steps after a 401 and reports the rest as skipped because the run stopped", async () => {
    const client = createFakeClient();
    client.failWith.set("createGroup:g2", 401);
    const plan = aPlan(["g1", "g2", "g3", "g4"].map((g) => groupStep(g)));
    const result = await applyPlan({ plan, client, concurrency: 1, passwords: noPasswords });
    expect(result.stoppedBy).toBe("fatal");
    expect(result.stopReason).toContain("401");
    expect(result.outcomes.map((o) => o.outcome)).toEqual(["succeeded", "failed", "skipped", "skipped"]);
    expect(result.outcomes[3]).toMatchObject({ cause: "stopped" });
    expect(result.outcomes[3]?.reason).toContain("the run stopped");
    expect([...client.groups.keys()]).toEqual(["g1"]);
    expect(exitCodeForApply(result)).toBe(1);
  });

  it("stops the run when a password cannot be stored, and sends no create without it", async () => {
    const client = createFakeClient();
    const broken = {
      source: "generate" as const,
      passwordFor: async () => Promise.reject(new Error("ENOSPC: no space left on device, write")),
      close: async () => {},
    };
    const plan = aPlan([...newUserSteps("a@example.com", "a"), ...newUserSteps("b@example.com", "b")]);
    const result = await applyPlan({ plan, client, concurrency: 1, passwords: broken });
    expect(result.stoppedBy).toBe("fatal");
    expect(result.outcomes[0]?.error?.message).toMatch(
      /initial password for a@example.com could not be stored \(ENOSPC/,
    );
    expect(result.outcomes.slice(1).map((o) => o.outcome)).toEqual(["skipped", "skipped", "skipped"]);
    expect(client.idp.size).toBe(0);
    expect(client.stats().requests).toBe(0);
  });

  it("trips the circuit breaker after N consecutive failures", async () => {
    const client = createFakeClient();
    const ids = ["a", "b", "c", "d", "e", "f"];
    for (const id of ids.slice(0, 4)) client.failWith.set(`createGroup:${id}`, 500);
    const plan = aPlan(ids.map((g) => groupStep(g)));
    const result = await applyPlan({
      plan,
      client,
      concurrency: 1,
      circuitBreaker: 3,
      passwords: noPasswords,
    });
    expect(result.stoppedBy).toBe("circuitBreaker");
    expect(result.counts).toMatchObject({ failed: 3, skipped: 3, succeeded: 0 });
    expect(client.groups.size).toBe(0);
  });

  it("an interrupt (SIGINT/SIGTERM) starts no new step, lets running ones finish, and says so", async () => {
    const client = createFakeClient();
    const controller = new AbortController();
    let release!: () => void;
    client.gates.set("createGroup:a", new Promise<void>((r) => (release = r)));
    const plan = aPlan(["a", "b", "c"].map((g) => groupStep(g)));
    const run = applyPlan({
      plan,
      client,
      concurrency: 1,
      passwords: noPasswords,
      signal: controller.signal,
    });
    controller.abort();
    release();
    const result = await run;
    expect(result.stoppedBy).toBe("interrupted");
    expect(result.outcomes.map((o) => o.outcome)).toEqual(["succeeded", "skipped", "skipped"]);
    expect(result.outcomes[1]).toMatchObject({ cause: "stopped" });
    expect([...client.groups.keys()]).toEqual(["a"]);
    expect(exitCodeForApply(result)).toBe(130);
  });

  it("a success resets the circuit breaker count", async () => {
    const client = createFakeClient();
    for (const id of ["a", "b", "d", "e"]) client.failWith.set(`createGroup:${id}`, 500);
    const plan = aPlan(["a", "b", "c", "d", "e", "f"].map((g) => groupStep(g)));
    const result = await applyPlan({
      plan,
      client,
      concurrency: 1,
      circuitBreaker: 3,
      passwords: noPasswords,
    });
    expect(result.stoppedBy).toBeUndefined();
    expect(result.counts).toMatchObject({ failed: 4, succeeded: 2 });
  });

  it("reports held-back deletions and stale steps without carrying them out (exit 3)", async () => {
    const client = createFakeClient();
    client.idp.set("old@example.com", {
      email: "old@example.com",
      displayName: "old",
      authenticationId: "x",
    });
    const plan = aPlan([
      groupStep("a"),
      groupStep("b", ["a"]),
      groupStep("new"),
      deleteCredentialsStep("old@example.com", "heldBack"),
    ]);
    const result = await applyPlan({
      plan,
      client,
      concurrency: 2,
      passwords: noPasswords,
      stale: new Set(["createGroup:a"]),
    });
    const o = byId(result.outcomes);
    expect(o["deleteCredentials:old@example.com"]).toMatchObject({ outcome: "heldBack", attempts: 0 });
    expect(o["createGroup:a"]?.outcome).toBe("stale");
    expect(o["createGroup:b"]).toMatchObject({
      outcome: "skipped",
      cause: "stale",
      reason: "dependency createGroup:a is stale",
    });
    expect(o["createGroup:new"]?.outcome).toBe("succeeded");
    expect(client.idp.has("old@example.com")).toBe(true);
    expect(exitCodeForApply(result)).toBe(3);
  });

  it("a held-back step behind another held-back step is reported held back, not skipped", async () => {
    const client = createFakeClient();
    const creds = deleteCredentialsStep("old@example.com", "heldBack");
    const mapping: Step = {
      ...creds,
      id: "deleteMapping:old",
      kind: "deleteMapping",
      target: "old",
      dependsOn: [creds.id],
      before: { id: "old", groups: [] },
    };
    const result = await applyPlan({
      plan: aPlan([creds, mapping]),
      client,
      concurrency: 1,
      passwords: noPasswords,
    });
    expect(result.outcomes.map((o) => o.outcome)).toEqual(["heldBack", "heldBack"]);
    expect(result.outcomes[0]?.reason).toMatch(/--allow-deletes/);
    expect(exitCodeForApply(result)).toBe(3);
  });

  it("never runs more steps at once than the concurrency", async () => {
    const client = createFakeClient({ delayMs: 2 });
    const plan = aPlan(Array.from({ length: 40 }, (_, i) => groupStep(`g${i}`)));
    const result = await applyPlan({ plan, client, concurrency: 4, passwords: noPasswords });
    expect(result.counts.succeeded).toBe(40);
    expect(client.maxInFlight).toBe(4);
  });

  it("reports progress until every step is done", async () => {
    const client = createFakeClient();
    const seen: number[] = [];
    const plan = aPlan(["a", "b", "c"].map((g) => groupStep(g)));
    await applyPlan({
      plan,
      client,
      concurrency: 2,
      passwords: noPasswords,
      onProgress: (p) => seen.push(p.done),
    });
    expect(seen.at(-1)).toBe(3);
    expect(seen).toEqual([...seen].sort((x, y) => x - y));
  });

  it("refuses a plan made for another API profile before sending anything", async () => {
    const client = createFakeClient();
    const err = await applyPlan({
      plan: aPlan([groupStep("a")], { profile: "legacy" }),
      client,
      concurrency: 1,
      passwords: noPasswords,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SafetyRefusal);
    expect((err as Error).message).toMatch(/profile legacy but the service speaks v1/);
    expect(client.stats().requests).toBe(0);
  });

  it("rejects a plan that depends on an unknown step before sending anything", async () => {
    const client = createFakeClient();
    const step: Step = { ...groupStep("a"), dependsOn: ["nope"] };
    await expect(
      applyPlan({ plan: aPlan([step]), client, concurrency: 1, passwords: noPasswords }),
    ).rejects.toThrow(/unknown step nope/);
    expect(client.stats().requests).toBe(0);
  });

  it("runs 100,000 steps (chains of 10) with an instant client in linear time (prints the figure)", async () => {
    const steps: Step[] = [];
    for (let c = 0; c < 10_000; c++) {
      for (let k = 0; k < 10; k++)
        steps.push({ ...groupStep(`c${c}-${k}`), dependsOn: k === 0 ? [] : [`createGroup:c${c}-${k - 1}`] });
    }
    const client = createFakeClient({ delayMs: 0 });
    const t0 = performance.now();
    const result = await applyPlan({ plan: aPlan(steps), client, concurrency: 16, passwords: noPasswords });
    console.log(
      `100,000-step plan applied against an instant client in ${Math.round(performance.now() - t0)} ms`,
    );
    expect(result.counts.succeeded).toBe(100_000);
    expect(client.groups.size).toBe(100_000);
    expect(client.maxInFlight).toBe(16);
  });

  it("settles 20,000 skipped steps behind one failure", async () => {
    // Fan-out DAG: 1 root, then chains of 10 hanging off it.
    const steps: Step[] = [groupStep("root")];
    for (let c = 0; c < 2_000; c++) {
      for (let k = 0; k < 10; k++)
        steps.push({
          ...groupStep(`c${c}-${k}`),
          dependsOn: [k === 0 ? "createGroup:root" : `createGroup:c${c}-${k - 1}`],
        });
    }
    const client = createFakeClient();
    client.failWith.set("createGroup:root", 500);
    const t0 = performance.now();
    const result = await applyPlan({ plan: aPlan(steps), client, concurrency: 8, passwords: noPasswords });
    console.log(
      `20,001-step plan settled (root failed, all skipped) in ${Math.round(performance.now() - t0)} ms`,
    );
    expect(result.counts.skipped).toBe(20_000);
    expect(result.outcomes.at(-1)?.reason).toBe(
      `dependency createGroup:c1999-8 was skipped; root cause: createGroup:root failed`,
    );
  });
});
