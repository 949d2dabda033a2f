/**
 * The plan-time question "does this service have bulk membership?": asked once and only when the
 * plan would move people in bulk, about the smallest group it moves people in or out of.
 */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { probeBulkMembership } from "../../src/cli/bulk-probe.js";
import type { EmulatorOptions } from "../../src/emulator/types.js";
import { createLogger } from "../../src/logging.js";
import { plan } from "../../src/plan/index.js";
import { listActualState } from "../../src/service/index.js";
import { withEmulatorClient } from "../helpers/env.js";
import { aDesiredUser, aPolicy, desiredOf } from "../apply/scenario.js";

const member = (id: string, group: string) => ({
  id,
  authenticationId: `sub-${id}`,
  email: `${id}@x.com`,
  groups: [group],
});
const seed = {
  groups: [{ id: "big" }, { id: "small" }, { id: "tiny" }],
  mappings: [...Array.from({ length: 30 }, (_, i) => member(`b${i}`, "big")), member("s1", "small")],
};

async function probe(desiredGroups: Record<string, string[]>, emulator: EmulatorOptions = {}) {
  const env = await withEmulatorClient({ emulator: { seed, ...emulator }, client: { profile: "v1" } });
  const warnings: string[] = [];
  const logger = createLogger({
    level: "warn",
    destination: new Writable({ write: (c: Buffer, _e, done) => (warnings.push(c.toString()), done()) }),
  });
  try {
    const actual = await listActualState(env.client);
    const users = Object.entries(desiredGroups).map(([id, groups]) =>
      aDesiredUser({ id, email: `${id}@x.com`, identity: "external", authenticationId: `sub-${id}`, groups }),
    );
    const p = plan({ desired: desiredOf(users), actual, policy: aPolicy(), profile: "v1" });
    env.emulator.resetLog();
    const answer = await probeBulkMembership({ client: env.client, actual, plan: p, logger });
    return { answer, requests: env.emulator.requestLog().map((r) => `${r.method} ${r.url}`), warnings };
  } finally {
    await env.close();
  }
}

describe("probeBulkMembership", () => {
  it("asks about the smallest group the plan moves people in or out of, once; a yes changes nothing", async () => {
    const r = await probe({ b0: ["small"], b1: ["small"] });
    expect(r.requests).toEqual(["GET /api/v1/actions/userManagement/userGroups/small/members"]);
    expect(r.answer).toBeUndefined();
    expect(r.warnings).toEqual([]);
  });

  it("a plan that moves nobody in bulk asks nothing", async () => {
    const r = await probe({ b0: ["big"] });
    expect(r.requests).toEqual([]);
  });

  it.each([404, 405] as const)(
    "%i: one warning, and the actual state says no bulk membership",
    async (status) => {
      const r = await probe({ b0: ["small"], b1: ["small"] }, { userManagement: status });
      expect(r.answer?.bulkMembership).toBe(false);
      expect(r.warnings).toHaveLength(1);
      expect(r.warnings[0]).toContain(`userGroups/small/members answered ${status}`);
    },
  );
});
