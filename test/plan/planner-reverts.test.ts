/**
 * The revert guard (issue 49, DESIGN.md §5): a step that undoes what a recent apply changed is
 * held back like a deletion. The planner takes the time and the recorded changes as input, so
 * each rule is a table row built by hand.
 */
import { describe, expect, test } from "vitest";
import { changesOf, plan, type Plan, type RecentChange } from "../../src/plan/index.js";
import type { Policy } from "../../src/plan/policy.js";
import { renderPlan } from "../../src/report/index.js";
import type { DesiredUser } from "../../src/desired/types.js";
import type { ActualState } from "../../src/service/types.js";
import { aDesiredState, aGroup, aPolicy, aSyncedUser, anActualState, stepIds } from "./builders.js";

const HOUR = 3_600_000;
const NOW = Date.parse("2024-05-06T10:00:00.000Z");
const WINDOW = { text: "72h", seconds: 72 * 3600 };
const RUN = "sha256:correction";

/** Jane, whom the correction run moved from eng to sales and renamed "Jane New". */
function corrected() {
  const jane = aSyncedUser("jane@x.com", { groups: ["sales"], displayName: "Jane New" });
  const actual: Partial<ActualState> = {
    idpUsers: [jane.idp],
    mappings: [jane.mapping],
    groups: [aGroup({ id: "eng" }), aGroup({ id: "sales" })],
  };
  return { jane, actual };
}

const change = (c: Omit<RecentChange, "run" | "at"> & { at?: number }): RecentChange => ({
  at: NOW - HOUR,
  run: RUN,
  ...c,
});

/** What the correction run recorded: the move and the rename. */
const correction = (at = NOW - HOUR): RecentChange[] => [
  change({ object: "mapping:jane", field: "group:sales", before: "not a member", after: "member", at }),
  change({ object: "mapping:jane", field: "group:eng", before: "member", after: "not a member", at }),
  change({ object: "idp:jane@x.com", field: "displayName", before: "Jane Old", after: "Jane New", at }),
];

function planWith(o: {
  user?: Partial<DesiredUser>;
  changes?: RecentChange[];
  policy?: Partial<Policy>;
}): Plan {
  const { jane, actual } = corrected();
  return plan({
    desired: aDesiredState([{ ...jane.user, ...o.user }]),
    actual: anActualState(actual),
    policy: aPolicy({ revertWindow: WINDOW, ...o.policy }),
    profile: "v1",
    recent: { now: NOW, changes: o.changes ?? correction() },
  });
}

/** The original file: Jane back in eng, named "Jane Old". */
const ORIGINAL = { groups: ["eng"], displayName: "Jane Old" };

describe("the revert guard", () => {
  test("re-applying the original file: the move and the rename back are held, naming the correction run", () => {
    const p = planWith({ user: ORIGINAL });
    expect(stepIds(p)).toEqual(["updateCredentials:jane@x.com (heldBack)", "updateMapping:jane (heldBack)"]);
    expect(p.reverts).toEqual({
      window: "72h",
      limit: 0,
      wanted: 2,
      changes: [
        {
          step: "updateCredentials:jane@x.com",
          object: "idp:jane@x.com",
          field: "displayName",
          from: "Jane New",
          to: "Jane Old",
          changedAt: "2024-05-06T09:00:00.000Z",
          run: RUN,
        },
        expect.objectContaining({
          step: "updateMapping:jane",
          field: "group:eng",
          from: "not a member",
          to: "member",
        }),
        expect.objectContaining({
          step: "updateMapping:jane",
          field: "group:sales",
          from: "member",
          to: "not a member",
        }),
      ],
    });
    expect(p.counts.heldBack).toBe(2);
    const text = renderPlan(p, { format: "text", detail: "full", dryRun: true, color: false });
    expect(text).toContain("Held back by the revert guard (policy.revertWindow 72h), 0 allowed");
    expect(text).toContain("--allow-reverts 2");
    expect(text).toContain(`undoing the run of 2024-05-06T09:00:00.000Z (stateDigest ${RUN})`);
    const md = renderPlan(p, { format: "markdown", detail: "full", dryRun: true, color: false });
    expect(md).toContain("### Held back by the revert guard");
  });

  test.each([
    [
      "--allow-reverts 2 lets both through (the membership-only move goes in bulk)",
      { allowReverts: 2 },
      false,
    ],
    ["--allow-reverts 1 is fewer than wanted: all held", { allowReverts: 1 }, true],
  ])("%s", (_, policy, held) => {
    const p = planWith({ user: ORIGINAL, policy });
    expect(p.steps.every((s) => s.status === (held ? "heldBack" : "planned"))).toBe(true);
    expect(p.reverts?.wanted).toBe(2);
  });

  test.each([
    ["changes older than the window", correction(NOW - 73 * HOUR), {}],
    ["the guard off (revertWindow 0)", correction(), { revertWindow: { text: "0", seconds: 0 } }],
    ["no recorded changes", [], {}],
  ])("not held: %s", (_, changes, policy) => {
    const p = planWith({ user: ORIGINAL, changes, policy });
    expect(p.steps.some((s) => s.status === "heldBack")).toBe(false);
    expect(p.reverts).toBeUndefined();
  });

  test("a change that goes further (a newer name, not the old one) is not a revert", () => {
    const p = planWith({ user: { displayName: "Jane Newer" } });
    expect(stepIds(p)).toEqual(["updateCredentials:jane@x.com"]);
    expect(p.reverts).toBeUndefined();
  });

  test("leaving a group a recent run joined is a revert, whatever group is joined instead", () => {
    const p = planWith({ user: { groups: [] } });
    expect(stepIds(p)).toEqual(["updateMapping:jane (heldBack)"]);
    expect(p.reverts?.changes.map((c) => c.field)).toEqual(["group:sales"]);
  });

  test("deleting a login and a person a recent run created is held (full mode, deletions remove)", () => {
    const { jane, actual } = corrected();
    const created = [
      change({ object: "mapping:jane", field: "exists", before: "absent", after: "present" }),
      change({ object: "idp:jane@x.com", field: "exists", before: "absent", after: "present" }),
    ];
    const p = plan({
      desired: aDesiredState([]),
      actual: anActualState(actual),
      policy: aPolicy({ revertWindow: WINDOW, mode: "full", deletions: "remove", maxDeletes: { count: 5 } }),
      profile: "v1",
      recent: { now: NOW, changes: created },
    });
    expect(stepIds(p)).toEqual(["deleteCredentials:jane@x.com (heldBack)", "deleteMapping:jane (heldBack)"]);
    expect(p.reverts?.changes.map((c) => c.object)).toEqual(["idp:jane@x.com", "mapping:jane"]);
    void jane;
  });

  test("a leaver due after policy.revokeAfter is deleted even if a recent run created them", () => {
    const { actual } = corrected();
    const created = [change({ object: "mapping:jane", field: "exists", before: "absent", after: "present" })];
    const p = plan({
      desired: aDesiredState([]),
      actual: anActualState(actual),
      policy: aPolicy({
        revertWindow: WINDOW,
        revokeAfter: { text: "1h", seconds: 3600 },
        mode: "full",
        deletions: "remove",
        maxDeletes: { count: 5 },
      }),
      profile: "v1",
      grace: { now: NOW, people: new Map([["mapping:jane", { since: NOW - 2 * HOUR, reason: "created" }]]) },
      recent: { now: NOW, changes: created },
    });
    expect(stepIds(p)).toEqual(["deleteCredentials:jane@x.com", "deleteMapping:jane"]);
    expect(p.reverts).toBeUndefined();
  });

  test("a leaver the source marks gone (state: absent) is deleted even if a recent run created them", () => {
    const { jane, actual } = corrected();
    const created = [
      change({ object: "mapping:jane", field: "exists", before: "absent", after: "present" }),
      change({ object: "idp:jane@x.com", field: "exists", before: "absent", after: "present" }),
    ];
    const p = plan({
      desired: aDesiredState([{ ...jane.user, state: "absent" }]),
      actual: anActualState(actual),
      policy: aPolicy({ revertWindow: WINDOW, deletions: "remove", maxDeletes: { count: 5 } }),
      profile: "v1",
      recent: { now: NOW, changes: created },
    });
    expect(stepIds(p)).toEqual(["deleteCredentials:jane@x.com", "deleteMapping:jane"]);
    expect(p.reverts).toBeUndefined();
  });

  test("bulk membership is remembered per group and member", () => {
    const base = { id: "x", dependsOn: [], reason: "", touches: [], status: "planned" as const };
    expect(changesOf({ ...base, kind: "addMembers", target: "eng", members: ["a", "b"] })).toEqual([
      { object: "mapping:a", field: "group:eng", before: "not a member", after: "member" },
      { object: "mapping:b", field: "group:eng", before: "not a member", after: "member" },
    ]);
    expect(changesOf({ ...base, kind: "removeMembers", target: "eng", members: ["a"] })).toEqual([
      { object: "mapping:a", field: "group:eng", before: "member", after: "not a member" },
    ]);
  });
});
