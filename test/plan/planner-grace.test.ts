/**
 * The grace period for leavers (policy.revokeAfter) and the people kept only by incremental mode:
 * the planner takes the time and the state file's record as arguments, so each rule is a table row.
 */
import { describe, expect, test } from "vitest";
import { InternalError } from "../../src/errors.js";
import { parsePlan, plan, serializePlan, type GraceEntry, type Plan } from "../../src/plan/index.js";
import type { ActualState } from "../../src/service/types.js";
import { renderPlan } from "../../src/report/index.js";
import { aDesiredState, aMapping, aPolicy, aUser, anActualState, anIdpUser, stepIds } from "./builders.js";

const HOUR = 3_600_000;
const NOW = Date.parse("2024-05-06T10:00:00.000Z");
const REVOKE_AFTER = { text: "72h", seconds: 72 * 3600 };

/** n mapped built-in users u0..u(n-1) at example.com. */
function population(n: number): Pick<ActualState, "idpUsers" | "mappings"> {
  const idpUsers = Array.from({ length: n }, (_, i) => anIdpUser({ email: `u${i}@example.com` }));
  return {
    idpUsers,
    mappings: idpUsers.map((u, i) =>
      aMapping({ id: `u${i}`, authenticationId: u.authenticationId, email: u.email }),
    ),
  };
}

/** Everyone of a population of 10 but the ones left out is in the desired state. */
function fullPlan(options: {
  missing: number[];
  state?: Record<string, GraceEntry>;
  policy?: Parameters<typeof aPolicy>[0];
  absent?: number[];
}): Plan {
  const users = Array.from({ length: 10 }, (_, i) => i)
    .filter((i) => !options.missing.includes(i))
    .map((i) =>
      aUser({ email: `u${i}@example.com`, ...(options.absent?.includes(i) ? { state: "absent" } : {}) }),
    );
  return plan({
    desired: aDesiredState(users),
    actual: anActualState(population(10)),
    policy: aPolicy({ mode: "full", revokeAfter: REVOKE_AFTER, maxDeletes: { count: 5 }, ...options.policy }),
    profile: "v1",
    grace: { now: NOW, people: new Map(Object.entries(options.state ?? {})) },
  });
}

const iso = (ms: number): string => new Date(ms).toISOString();

describe("policy.revokeAfter", () => {
  test("a person first found missing waits: pending from now until now + revokeAfter, nothing planned", () => {
    const p = fullPlan({ missing: [3] });
    expect(stepIds(p)).toEqual([]);
    expect(p.grace).toEqual({
      revokeAfter: "72h",
      now: iso(NOW),
      pending: [{ target: "mapping:u3", since: iso(NOW), until: iso(NOW + 72 * HOUR), reason: "missing" }],
      due: [],
    });
    expect(p.deleteGuard.wanted).toBe(0);
  });

  test("still missing after the grace period: deleted, the reason saying since when; the guard counts it", () => {
    const since = NOW - 73 * HOUR;
    const p = fullPlan({ missing: [3], state: { "mapping:u3": { since, reason: "missing" } } });
    expect(stepIds(p)).toEqual(["deleteCredentials:u3@example.com"]);
    expect(p.steps[0]!.reason).toBe(
      `not in the desired state (mode full) since ${iso(since)}; policy.revokeAfter 72h has passed`,
    );
    expect(p.grace?.due).toEqual([{ target: "mapping:u3", since: iso(since), reason: "missing" }]);
    expect(p.grace?.pending).toEqual([]);
    expect(p.deleteGuard.wanted).toBe(1);
  });

  test("the guards still apply to people whose grace period has passed", () => {
    const state = Object.fromEntries(
      [1, 2, 3].map((i) => [`mapping:u${i}`, { since: NOW - 100 * HOUR, reason: "missing" as const }]),
    );
    const p = fullPlan({ missing: [1, 2, 3], state, policy: { maxDeletes: { count: 2 } } });
    expect(stepIds(p)).toEqual([
      "deleteCredentials:u1@example.com (heldBack)",
      "deleteCredentials:u2@example.com (heldBack)",
      "deleteCredentials:u3@example.com (heldBack)",
    ]);
    expect(p.grace?.due.map((d) => d.target)).toEqual(["mapping:u1", "mapping:u2", "mapping:u3"]);
  });

  test("a person an incremental run created waits from their creation, and says so", () => {
    const created = NOW - 2 * HOUR;
    const p = fullPlan({ missing: [4], state: { "mapping:u4": { since: created, reason: "created" } } });
    expect(stepIds(p)).toEqual([]);
    expect(p.grace?.pending).toEqual([
      { target: "mapping:u4", since: iso(created), until: iso(created + 72 * HOUR), reason: "created" },
    ]);
    const text = renderPlan(p, { format: "text", dryRun: true, color: false });
    expect(text).toContain("Pending (policy.revokeAfter 72h) (1):");
    expect(text).toContain(
      "user u4: created by an incremental run at 2024-05-06 08:00 UTC and not in the source yet; revoked at 2024-05-09 08:00 UTC unless it appears there",
    );
    expect(text).toMatch(
      /\n {2}Pending +1 person not in the source, waiting for policy.revokeAfter \(72h\); the first is revoked at 2024-05-09 08:00 UTC\n/,
    );
    expect(text).toContain("No changes now. 1 person pending (policy.revokeAfter).");
  });

  test("a person back in the source is neither pending nor due, whatever the state file says", () => {
    const p = fullPlan({
      missing: [],
      state: { "mapping:u3": { since: NOW - 100 * HOUR, reason: "missing" } },
    });
    expect(stepIds(p)).toEqual([]);
    expect(p.grace).toMatchObject({ pending: [], due: [] });
  });

  test("rows marked absent, protected people and deletions: none never wait", () => {
    const absent = fullPlan({ missing: [], absent: [2] });
    expect(stepIds(absent)).toEqual(["deleteCredentials:u2@example.com"]);
    expect(absent.grace?.pending).toEqual([]);
    const protectedOne = fullPlan({ missing: [5], policy: { protect: ["u5"] } });
    expect(protectedOne.grace?.pending).toEqual([]);
    expect(protectedOne.notices.map((n) => n.kind)).toEqual(["protected"]);
    const none = fullPlan({ missing: [5], policy: { deletions: "none" } });
    expect(none.grace?.pending).toEqual([]);
  });

  test("pending people are listed by when they go; the JSON summary counts them", () => {
    const p = fullPlan({
      missing: [1, 2],
      state: { "mapping:u2": { since: NOW - 10 * HOUR, reason: "missing" } },
    });
    expect(p.grace?.pending.map((x) => x.target)).toEqual(["mapping:u2", "mapping:u1"]);
    const json = JSON.parse(renderPlan(p, { format: "json", dryRun: true, color: false })) as {
      summary: { pending?: unknown };
    };
    expect(json.summary.pending).toEqual({ people: 2, firstUntil: iso(NOW + 62 * HOUR) });
    const md = renderPlan(p, { format: "markdown", dryRun: true, color: false });
    expect(md).toContain("### Pending (policy.revokeAfter 72h) (2)");
    expect(md).toContain("- **Pending:** 2 people not in the source");
  });

  test("the planner refuses a grace period without the time and state (no silent immediate deletion)", () => {
    expect(() =>
      plan({
        desired: aDesiredState([]),
        actual: anActualState(),
        policy: aPolicy({ mode: "full", revokeAfter: REVOKE_AFTER }),
        profile: "v1",
      }),
    ).toThrow(InternalError);
  });

  test("a saved plan keeps its grace record; a damaged one is refused (apply --plan writes the state from it)", () => {
    const p = fullPlan({ missing: [1], state: { "mapping:u2": { since: NOW, reason: "created" } } });
    const text = serializePlan(p);
    expect(parsePlan(text, "plan.json").grace).toEqual(p.grace);
    const broken = JSON.parse(text) as { grace: { pending: Array<{ until: string }> } };
    broken.grace.pending[0]!.until = "next week";
    expect(() => parsePlan(JSON.stringify(broken), "plan.json")).toThrow(
      /plan.json is not a usable plan: grace.pending\[0\] must have a target, ISO 8601 times and a reason/,
    );
  });

  test("same inputs, same plan: the time is an argument", () => {
    const a = fullPlan({ missing: [1, 7] });
    const b = fullPlan({ missing: [7, 1] });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });
});

describe("people kept only because the mode is incremental", () => {
  const incremental = (policy: Parameters<typeof aPolicy>[0] = {}) =>
    plan({
      desired: aDesiredState([aUser({ email: "u0@example.com" }), aUser({ email: "new@example.com" })]),
      actual: anActualState({
        ...population(10),
        mappings: [...population(10).mappings, aMapping({ id: "revoked-already" })],
      }),
      policy: aPolicy(policy),
      profile: "v1",
    });

  test("counts the managed people a full run would revoke, and says so in the summary", () => {
    const p = incremental();
    expect(p.keptByMode).toBe(9);
    const text = renderPlan(p, { format: "text", dryRun: true, color: false });
    expect(text).toMatch(
      /\n {2}Kept by mode +9 people not in the file, kept because the mode is incremental \(mode full would revoke them\)\n/,
    );
  });

  test("under deletions: remove a mapping without credentials counts too; protected and none do not", () => {
    expect(incremental({ deletions: "remove" }).keptByMode).toBe(10);
    expect(incremental({ protect: ["u1", "u2"] }).keptByMode).toBe(7);
    expect(incremental({ deletions: "none" }).keptByMode).toBeUndefined();
    expect(incremental({ mode: "full", maxDeletes: { count: 100 } }).keptByMode).toBeUndefined();
  });
});
