import { describe, expect, it } from "vitest";
import { buildApplyReport, exitCodeForApply } from "../../src/apply/index.js";
import { withEmulatorClient } from "../helpers/env.js";
import { aDesiredGroup, aDesiredUser, aPolicy, desiredOf, planAndApply } from "./scenario.js";

describe("apply against the emulator", () => {
  it("creates groups, credentials and mappings; a second run plans nothing", async () => {
    const env = await withEmulatorClient();
    try {
      const desired = desiredOf(
        [aDesiredUser({ email: "Jane@a.com", id: "jane", displayName: "Jane", groups: ["sales"] }), aDesiredUser({ email: "bob@a.com", id: "bob", displayName: "Bob", groups: [] })],
        [aDesiredGroup({ id: "sales", name: "Sales" })],
      );
      const first = await planAndApply({ client: env.client, desired, policy: aPolicy() });
      expect(first.result.counts).toMatchObject({ succeeded: first.plan.steps.length, failed: 0 });
      expect(exitCodeForApply(first.result)).toBe(0);
      const state = env.emulator.state();
      const jane = state.idpUsers.find((u) => u.email.toLowerCase() === "jane@a.com");
      expect(state.mappings.find((m) => m.id === "jane")).toMatchObject({ authenticationId: jane?.authenticationId, groups: ["sales"] });
      const second = await planAndApply({ client: env.client, desired, policy: aPolicy() });
      expect(second.plan.steps).toEqual([]);
    } finally {
      await env.close();
    }
  });
});
