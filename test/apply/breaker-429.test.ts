/** A 429 is the service asking for a slower pace: it never counts towards the circuit breaker. */
import { describe, expect, it } from "vitest";
import { applyPlan } from "../../src/apply/index.js";
import { aPlan, groupStep, noPasswords } from "./builders.js";
import { createFakeClient } from "./fake-client.js";

describe("circuit breaker and 429", () => {
  it("steps that failed with 429 (retries spent) do not trip it", async () => {
    const client = createFakeClient();
    const ids = ["a", "b", "c", "d", "e", "f"];
    for (const id of ids.slice(0, 5)) client.failWith.set(`createGroup:${id}`, 429);
    const result = await applyPlan({
      plan: aPlan(ids.map((g) => groupStep(g))),
      client,
      concurrency: 1,
      circuitBreaker: 3,
      passwords: noPasswords,
    });
    expect(result.stoppedBy).toBeUndefined();
    expect(result.counts).toMatchObject({ failed: 5, succeeded: 1 });
  });
});
