import { describe, expect, it } from "vitest";
import { applyPlan } from "../../src/apply/index.js";
import type { Step } from "../../src/plan/types.js";
import { aPlan, deleteCredentialsStep, groupStep, newUserSteps, noPasswords } from "./builders.js";
import { createFakeClient } from "./fake-client.js";

const base = {
  dependsOn: [] as string[],
  reason: "test",
  touches: [] as string[],
  status: "planned" as const,
};

describe("applyPlan recovery", () => {
  it("a credentials create that meets 'exists' with the same display name succeeds and feeds the existing authenticationId", async () => {
    const client = createFakeClient();
    client.idp.set("jane@example.com", {
      email: "jane@example.com",
      displayName: "jane",
      authenticationId: "auth-existing",
    });
    const result = await applyPlan({
      plan: aPlan(newUserSteps("jane@example.com", "jane")),
      client,
      concurrency: 2,
      passwords: noPasswords,
    });
    expect(result.outcomes[0]).toMatchObject({ outcome: "succeeded", recovered: "exists" });
    expect(client.mappings.get("jane")?.authenticationId).toBe("auth-existing");
  });

  it("a credentials create that meets 'exists' with another display name fails with a conflict", async () => {
    const client = createFakeClient();
    client.idp.set("jane@example.com", {
      email: "jane@example.com",
      displayName: "Someone Else",
      authenticationId: "a",
    });
    const result = await applyPlan({
      plan: aPlan(newUserSteps("jane@example.com", "jane")),
      client,
      concurrency: 2,
      passwords: noPasswords,
    });
    expect(result.outcomes[0]?.outcome).toBe("failed");
    expect(result.outcomes[0]?.error?.message).toMatch(
      /conflict: IdP user jane@example.com already exists with display name "Someone Else"/,
    );
    expect(result.outcomes[1]?.outcome).toBe("skipped");
  });

  it("a mapping create that meets 'exists' succeeds when it points at the same authenticationId, updating its groups", async () => {
    const client = createFakeClient();
    client.mappings.set("jane", { id: "jane", authenticationId: "auth-1", groups: ["old"] });
    const step: Step = {
      ...base,
      id: "createMapping:jane",
      kind: "createMapping",
      target: "jane",
      after: { id: "jane", authenticationId: "auth-1", groups: ["new"] },
    };
    const result = await applyPlan({ plan: aPlan([step]), client, concurrency: 1, passwords: noPasswords });
    expect(result.outcomes[0]).toMatchObject({ outcome: "succeeded", recovered: "exists", attempts: 2 });
    expect(client.mappings.get("jane")?.groups).toEqual(["new"]);
  });

  it("a mapping create that meets 'exists' with another authenticationId fails naming both ids", async () => {
    const client = createFakeClient();
    client.mappings.set("jane", { id: "jane", authenticationId: "auth-other", groups: [] });
    const step: Step = {
      ...base,
      id: "createMapping:jane",
      kind: "createMapping",
      target: "jane",
      after: { id: "jane", authenticationId: "auth-1", groups: [] },
    };
    const result = await applyPlan({ plan: aPlan([step]), client, concurrency: 1, passwords: noPasswords });
    expect(result.outcomes[0]?.outcome).toBe("failed");
    expect(result.outcomes[0]?.error?.message).toContain("auth-other");
    expect(result.outcomes[0]?.error?.message).toContain("auth-1");
    expect(client.mappings.get("jane")?.authenticationId).toBe("auth-other");
  });

  it("a group create that meets 'exists' succeeds and brings name and parents in line", async () => {
    const client = createFakeClient();
    client.groups.set("p", { id: "p", parents: [] });
    client.groups.set("a", { id: "a", name: "Old", parents: [] });
    const result = await applyPlan({
      plan: aPlan([groupStep("a", ["p"]), { ...groupStep("p") }]),
      client,
      concurrency: 1,
      passwords: noPasswords,
    });
    expect(result.outcomes.map((o) => o.recovered)).toEqual(["exists", "exists"]);
    expect(client.groups.get("a")).toEqual({ id: "a", name: "a", parents: ["p"] });
  });

  it("a delete that meets 404 is done", async () => {
    const client = createFakeClient();
    const result = await applyPlan({
      plan: aPlan([deleteCredentialsStep("gone@example.com")]),
      client,
      concurrency: 1,
      passwords: noPasswords,
    });
    expect(result.outcomes[0]).toMatchObject({ outcome: "succeeded", recovered: "notFound" });
  });

  it("a mapping update that meets 404 fails and says the object disappeared", async () => {
    const client = createFakeClient();
    const before = { id: "jane", authenticationId: "a", groups: [] };
    const step: Step = {
      ...base,
      id: "updateMapping:jane",
      kind: "updateMapping",
      target: "jane",
      before,
      after: { ...before, groups: ["x"] },
    };
    const result = await applyPlan({ plan: aPlan([step]), client, concurrency: 1, passwords: noPasswords });
    expect(result.outcomes[0]).toMatchObject({ outcome: "failed", error: { status: 404 } });
    expect(result.outcomes[0]?.error?.message).toMatch(
      /mapping jane disappeared since the plan was made.*re-run plan/,
    );
  });
});
