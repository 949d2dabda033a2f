/**
 * Bulk membership steps carried out against the emulator over a real socket: the normal case in
 * two requests, a lost answer settled by reading the group back, a service without the endpoints
 * (404 or 405: one notice, then one PUT per person), a member or a group gone since the plan.
 * Every request sent to the userManagement paths is checked against the official OpenAPI.
 */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle, EmulatorOptions, EmulatorSeed } from "../../src/emulator/types.js";
import { createLogger } from "../../src/logging.js";
import { listActualState } from "../../src/service/index.js";
import { plan } from "../../src/plan/index.js";
import { applyPlan, type StepOutcome } from "../../src/apply/index.js";
import { noPasswords } from "./builders.js";
import { requestBodyProblems } from "../helpers/openapi.js";
import { withEmulatorClient, type EmulatorClientEnv } from "../helpers/env.js";
import { aDesiredGroup, aDesiredUser, aPolicy, desiredOf, planAndApply } from "./scenario.js";

const N = 12;
const ids = Array.from({ length: N }, (_, i) => `p${String(i).padStart(2, "0")}`);

/** `N` people mapped and with credentials, all in group `a`; groups `a` and `b` exist. */
function seed(): EmulatorSeed {
  return {
    groups: [{ id: "a" }, { id: "b" }],
    idpUsers: ids.map((id) => ({ email: `${id}@x.com`, displayName: id, authenticationId: `auth-${id}` })),
    mappings: ids.map((id) => ({ id, authenticationId: `auth-${id}`, email: `${id}@x.com`, groups: ["a"] })),
  };
}

const everyoneTo = (groups: string[]) =>
  desiredOf(ids.map((id) => aDesiredUser({ email: `${id}@x.com`, id, displayName: id, groups })));

async function env(emulator: EmulatorOptions = {}, retries = 2): Promise<EmulatorClientEnv> {
  const e = await withEmulatorClient({
    emulator: { seed: seed(), ...emulator },
    client: { profile: "v1", retries },
  });
  e.emulator.resetLog();
  return e;
}

/** Warn lines the executor logged, as parsed JSON. */
function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split("\n")) if (l.trim() !== "") lines.push(JSON.parse(l));
      done();
    },
  });
  return { logger: createLogger({ level: "warn", destination }), lines };
}

/** The groups of the seeded people (not of the token's owner, whom the emulator maps at start). */
const groupsOf = (e: EmulatorHandle) =>
  Object.fromEntries(
    e
      .state()
      .mappings.filter((m) => ids.includes(m.id))
      .map((m) => [m.id, m.groups]),
  );
const byId = (outcomes: StepOutcome[]) => Object.fromEntries(outcomes.map((o) => [o.stepId, o]));

function expectValidUserManagementRequests(e: EmulatorHandle): void {
  const sent = e.requestLog().filter((r) => r.url.includes("/actions/userManagement/"));
  expect(sent.length).toBeGreaterThan(0);
  for (const r of sent) expect(requestBodyProblems(r.method, r.url, r.body)).toEqual([]);
}

async function replanIsEmpty(e: EmulatorClientEnv, desired = everyoneTo(["b"])): Promise<void> {
  const actual = await listActualState(e.client);
  expect(plan({ desired, actual, policy: aPolicy(), profile: "v1" }).steps).toEqual([]);
}

describe("bulk membership against the emulator", () => {
  it(`moves ${N} people in two requests; a second run plans nothing`, async () => {
    const e = await env();
    try {
      const { plan: p, result } = await planAndApply({
        client: e.client,
        desired: everyoneTo(["b"]),
        policy: aPolicy(),
      });
      expect(p.steps.map((s) => s.id)).toEqual(["removeMembers:a", "addMembers:b"]);
      expect(result.counts).toMatchObject({ succeeded: 2, failed: 0 });
      expect(result.requests).toBe(2);
      expect(Object.values(groupsOf(e.emulator))).toEqual(ids.map(() => ["b"]));
      expectValidUserManagementRequests(e.emulator);
      await replanIsEmpty(e);
    } finally {
      await e.close();
    }
  });

  it("joining a group created in the same run: the group first, then its members", async () => {
    const e = await env();
    try {
      const desired = { ...everyoneTo(["a", "new"]), groups: [aDesiredGroup({ id: "new", name: "New" })] };
      const { result } = await planAndApply({ client: e.client, desired, policy: aPolicy() });
      expect(result.counts.failed).toBe(0);
      const writes = e.emulator.requestLog().filter((r) => r.method !== "GET");
      expect(writes.map((r) => `${r.method} ${r.url}`)).toEqual([
        "POST /api/v1/entities/userGroups",
        "POST /api/v1/actions/userManagement/userGroups/new/addMembers",
      ]);
      await replanIsEmpty(e, desired);
    } finally {
      await e.close();
    }
  });

  it("a lost answer, sent again and lost again: the group's members, read back, settle it", async () => {
    const e = await env({ faults: { loseAnswer: 1, pathPattern: /addMembers/ } }, 1);
    try {
      const { result } = await planAndApply({
        client: e.client,
        desired: everyoneTo(["a", "b"]),
        policy: aPolicy(),
      });
      expect(result.outcomes).toEqual([
        expect.objectContaining({
          stepId: "addMembers:b",
          outcome: "succeeded",
          recovered: "readBack",
          attempts: 2,
        }),
      ]);
      expect(
        e.emulator
          .requestLog()
          .filter((r) => r.url.includes("/userManagement/"))
          .map((r) => `${r.method} ${r.url.split("/").pop()} ${r.fault ?? r.status}`),
      ).toEqual(["POST addMembers lose", "POST addMembers lose", "GET members 200"]);
      expect(Object.values(groupsOf(e.emulator))).toEqual(ids.map(() => ["a", "b"]));
    } finally {
      await e.close();
    }
  });

  it("a 503 until the retries ran out, and the read-back shows nothing landed: failed; a re-run converges", async () => {
    const e = await env({ faults: { error503: 1, pathPattern: /removeMembers/ } }, 1);
    try {
      const first = await planAndApply({ client: e.client, desired: everyoneTo(["b"]), policy: aPolicy() });
      expect(byId(first.result.outcomes)["removeMembers:a"]).toMatchObject({
        outcome: "failed",
        error: { status: 503 },
      });
      expect(byId(first.result.outcomes)["addMembers:b"]?.outcome).toBe("succeeded");
      e.emulator.setFaults({});
      const second = await planAndApply({ client: e.client, desired: everyoneTo(["b"]), policy: aPolicy() });
      expect(second.plan.steps.map((s) => s.id)).toEqual(["removeMembers:a"]);
      expect(second.result.counts.failed).toBe(0);
      await replanIsEmpty(e);
    } finally {
      await e.close();
    }
  });

  it.each([405, 404] as const)(
    "a service answering %i on these paths: one notice, then every person moved by their own PUT",
    async (status) => {
      const e = await env({ userManagement: status });
      const { logger, lines } = capturedLogger();
      try {
        const { result } = await planAndApply({
          client: e.client,
          desired: everyoneTo(["b"]),
          policy: aPolicy(),
          apply: { logger },
        });
        expect(result.outcomes.map((o) => [o.stepId, o.outcome, o.recovered])).toEqual([
          ["removeMembers:a", "succeeded", "perPerson"],
          ["addMembers:b", "succeeded", "perPerson"],
        ]);
        const notices = lines.filter((l) => l["notice"] === "no-bulk-membership");
        expect(notices).toHaveLength(1);
        expect(notices[0]?.["msg"]).toMatch(/no bulk membership endpoints .* one mapping PUT each/);
        // Both steps ran at once and read-modified-wrote the same mappings: one at a time per person.
        expect(Object.values(groupsOf(e.emulator))).toEqual(ids.map(() => ["b"]));
        const puts = e.emulator.requestLog().filter((r) => r.method === "PUT");
        expect(puts).toHaveLength(2 * N);
        await replanIsEmpty(e);
      } finally {
        await e.close();
      }
    },
  );

  it("a member deleted since the plan: that step moves the others one by one and fails naming them", async () => {
    const e = await env();
    const { logger, lines } = capturedLogger();
    try {
      const actual = await listActualState(e.client);
      const p = plan({ desired: everyoneTo(["b"]), actual, policy: aPolicy(), profile: "v1" });
      await e.client.deleteMapping("p03");
      const result = await applyPlan({
        plan: p,
        client: e.client,
        concurrency: 1,
        passwords: noPasswords,
        logger,
      });
      const out = byId(result.outcomes);
      expect(out["removeMembers:a"]).toMatchObject({ outcome: "succeeded", recovered: "perPerson" });
      expect(out["addMembers:b"]).toMatchObject({ outcome: "failed" });
      expect(out["addMembers:b"]?.error?.message).toBe(
        "1 of 12 people not moved into group b one by one; the first: mapping p03 disappeared since the plan was made; re-run plan",
      );
      expect(Object.values(groupsOf(e.emulator))).toEqual(ids.slice(1).map(() => ["b"]));
      expect(lines.filter((l) => l["notice"] === "no-bulk-membership")).toEqual([]);
    } finally {
      await e.close();
    }
  });

  it("a group deleted since the plan: the step fails and says to plan again", async () => {
    const e = await env();
    try {
      const actual = await listActualState(e.client);
      const p = plan({ desired: everyoneTo(["a", "b"]), actual, policy: aPolicy(), profile: "v1" });
      await e.client.deleteGroup("b");
      const result = await applyPlan({ plan: p, client: e.client, concurrency: 1, passwords: noPasswords });
      expect(result.outcomes[0]).toMatchObject({
        outcome: "failed",
        error: {
          status: 404,
          message:
            "group b disappeared since the plan was made (POST .../addMembers answered 404); re-run plan",
        },
      });
    } finally {
      await e.close();
    }
  });
});
