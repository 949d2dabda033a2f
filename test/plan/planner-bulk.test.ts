/** Bulk membership (issue 24): the planner picks the cheapest correct form per person. */
import { describe, expect, test } from "vitest";
import { findStaleSteps } from "../../src/apply/stale.js";
import { MEMBERS_PER_REQUEST } from "../../src/plan/bulk.js";
import { serializePlan, summarizeDone, summarizePlan } from "../../src/plan/index.js";
import type { MembersStep, Plan } from "../../src/plan/types.js";
import type { ActualState } from "../../src/service/types.js";
import {
  aDesiredGroup,
  aGroup,
  aMapping,
  aSyncedUser,
  aUser,
  anActualState,
  planOf,
  step,
  stepIds,
} from "./builders.js";

/** `n` synced people `p0001…` in group `from`, and their desired rows moving them to `to`. */
function reorg(n: number, from: string, to: string) {
  const people = Array.from({ length: n }, (_, i) =>
    aSyncedUser(`p${String(i).padStart(4, "0")}@x.com`, { groups: [from] }),
  );
  return {
    users: people.map((p) => ({ ...p.user, groups: [to] })),
    actual: {
      idpUsers: people.map((p) => p.idp),
      mappings: people.map((p) => p.mapping),
      groups: [aGroup({ id: from }), aGroup({ id: to })],
    } satisfies Partial<ActualState>,
  };
}

const members = (p: Plan, id: string): string[] => (step(p, id) as MembersStep).members;

describe("who is moved in bulk", () => {
  test("people whose only change is membership: one addMembers and one removeMembers, no PUT", () => {
    const { users, actual } = reorg(3, "a", "b");
    const p = planOf({ users, actual });
    expect(stepIds(p)).toEqual(["removeMembers:a", "addMembers:b"]);
    expect(members(p, "addMembers:b")).toEqual(["p0000", "p0001", "p0002"]);
    expect(members(p, "removeMembers:a")).toEqual(["p0000", "p0001", "p0002"]);
    expect(step(p, "addMembers:b").reason).toBe("3 people join b; membership is their only change");
  });

  test("a person with another change keeps one PUT carrying the final groups, and is in no bulk step", () => {
    const { users, actual } = reorg(3, "a", "b");
    users[1] = { ...users[1]!, firstname: "Renamed" };
    const p = planOf({ users, actual });
    expect(stepIds(p)).toEqual(["updateMapping:p0001", "removeMembers:a", "addMembers:b"]);
    expect(step(p, "updateMapping:p0001")).toMatchObject({
      before: { groups: ["a"] },
      after: { groups: ["b"], firstname: "Renamed" },
    });
    expect(members(p, "addMembers:b")).toEqual(["p0000", "p0002"]);
    expect(members(p, "removeMembers:a")).toEqual(["p0000", "p0002"]);
  });

  test("a new login (authenticationId changes) or a new mapping is never moved in bulk", () => {
    const jo = aSyncedUser("jo@x.com", { groups: ["a"] });
    const p = planOf({
      users: [{ ...jo.user, groups: ["b"] }, aUser({ email: "new@x.com", id: "new", groups: ["b"] })],
      actual: {
        idpUsers: [],
        mappings: [jo.mapping],
        groups: [aGroup({ id: "a" }), aGroup({ id: "b" })],
      },
    });
    expect(stepIds(p)).toEqual([
      "createCredentials:jo@x.com",
      "createCredentials:new@x.com",
      "updateMapping:jo",
      "createMapping:new",
    ]);
  });

  test("a display-name change stays its own step and belongs to the same person", () => {
    const { users, actual } = reorg(2, "a", "b");
    users[0] = { ...users[0]!, displayName: "New Name" };
    const p = planOf({ users, actual });
    expect(stepIds(p)).toEqual(["updateCredentials:p0000@x.com", "removeMembers:a", "addMembers:b"]);
    expect(step(p, "updateCredentials:p0000@x.com").touches).toEqual(["idp:p0000@x.com", "mapping:p0000"]);
    expect(summarizePlan(p).people).toMatchObject({ change: 2, fields: { displayName: 1, groups: 2 } });
  });

  test(`batches split at ${MEMBERS_PER_REQUEST} people, in id order`, () => {
    const n = 2 * MEMBERS_PER_REQUEST + 3;
    const { users, actual } = reorg(n, "a", "b");
    const p = planOf({ users, actual, policy: { membership: "additive" } });
    expect(stepIds(p)).toEqual(["addMembers:b", "addMembers:b#2", "addMembers:b#3"]);
    expect(members(p, "addMembers:b")).toHaveLength(MEMBERS_PER_REQUEST);
    expect(members(p, "addMembers:b#3")).toEqual(["p1000", "p1001", "p1002"]);
    expect(step(p, "addMembers:b#2").reason).toBe(
      `request 2 of 3: ${MEMBERS_PER_REQUEST} people join b; membership is their only change`,
    );
    expect(p.estimate.requests).toBe(3);
  });

  test("joining a group this plan creates waits for its creation", () => {
    const { users, actual } = reorg(2, "a", "new");
    const p = planOf({
      users,
      actual: { ...actual, groups: [aGroup({ id: "a" })] },
      groups: [aDesiredGroup({ id: "new", name: "New" })],
    });
    expect(stepIds(p)).toEqual(["createGroup:new", "removeMembers:a", "addMembers:new"]);
    expect(step(p, "addMembers:new").dependsOn).toEqual(["createGroup:new"]);
    expect(step(p, "removeMembers:a").dependsOn).toEqual([]);
  });

  test("a group pruned once its members leave waits for every bulk step moving them (as it waited for their PUT)", () => {
    const { users, actual } = reorg(2, "old", "b");
    const p = planOf({
      users,
      actual,
      groups: [aDesiredGroup({ id: "b" })],
      policy: { mode: "full", groups: { create: true, update: true, prune: true, createReferenced: false } },
    });
    expect(stepIds(p)).toEqual(["addMembers:b", "removeMembers:old", "deleteGroup:old"]);
    expect(step(p, "deleteGroup:old").dependsOn).toEqual(["addMembers:b", "removeMembers:old"]);
  });

  test("scope and protection: out-of-scope and protected people are never moved", () => {
    const { users, actual } = reorg(2, "a", "b");
    const admin = aSyncedUser("admin@x.com", { id: "admin", groups: ["a"] });
    const other = aSyncedUser("o@elsewhere.org", { groups: ["a"] });
    const p = planOf({
      users: [...users, { ...admin.user, groups: ["b"] }, { ...other.user, groups: ["b"] }],
      actual: {
        ...actual,
        idpUsers: [...actual.idpUsers, admin.idp, other.idp],
        mappings: [...actual.mappings, admin.mapping, other.mapping],
      },
      policy: { scope: { emailDomains: ["x.com"] } },
    });
    expect(members(p, "addMembers:b")).toEqual(["p0000", "p0001"]);
    expect(members(p, "removeMembers:a")).toEqual(["p0000", "p0001"]);
    expect(p.notices.map((n) => `${n.kind} ${n.target}`)).toEqual(
      expect.arrayContaining(["protected mapping:admin", "refused mapping:o"]),
    );
  });

  test("profile legacy and a service without the endpoints keep one PUT per person", () => {
    const { users, actual } = reorg(2, "a", "b");
    const expected = ["updateMapping:p0000", "updateMapping:p0001"];
    expect(stepIds(planOf({ users, actual, profile: "legacy" }))).toEqual(expected);
    expect(stepIds(planOf({ users, actual: { ...actual, bulkMembership: false } }))).toEqual(expected);
  });

  test("the same inputs in any order give byte-identical plans", () => {
    const { users, actual } = reorg(7, "a", "b");
    users[3] = { ...users[3]!, groups: ["a", "b"] };
    const one = serializePlan(planOf({ users, actual }));
    const two = serializePlan(
      planOf({
        users: [...users].reverse(),
        actual: {
          ...actual,
          mappings: [...actual.mappings].reverse(),
          idpUsers: [...actual.idpUsers].reverse(),
        },
      }),
    );
    expect(two).toBe(one);
  });
});

describe("a saved plan's bulk steps", () => {
  test("rely on every member's mapping: one changed member makes the steps moving them stale, not the others", () => {
    const { users, actual } = reorg(2, "a", "b");
    // Two more people leave b (and nobody else is in those requests).
    const extra = ["y@x.com", "z@x.com"].map((e) => aSyncedUser(e, { groups: ["b"] }));
    const p = planOf({
      users: [...users, ...extra.map((x) => ({ ...x.user, groups: [] }))],
      actual: {
        ...actual,
        idpUsers: [...actual.idpUsers, ...extra.map((x) => x.idp)],
        mappings: [...actual.mappings, ...extra.map((x) => x.mapping)],
      },
    });
    expect(stepIds(p)).toEqual(["removeMembers:a", "addMembers:b", "removeMembers:b"]);
    expect(step(p, "addMembers:b").touches).toEqual([
      "mapping:p0000",
      "idp:p0000@x.com",
      "mapping:p0001",
      "idp:p0001@x.com",
    ]);
    expect(p.objects["mapping:p0001"]).toMatch(/^[0-9a-f]{16}$/);
    const later = anActualState({
      ...actual,
      idpUsers: [...actual.idpUsers, ...extra.map((x) => x.idp)],
      mappings: [
        actual.mappings[0]!,
        aMapping({ ...actual.mappings[1]!, groups: ["a", "c"] }),
        ...extra.map((x) => x.mapping),
      ],
    });
    expect([...findStaleSteps(p, later)].sort()).toEqual(["addMembers:b", "removeMembers:a"]);
  });
});

describe("the cheapest form: bulk unless a person's own PUT costs no more", () => {
  test("a lone mover gets one PUT (one request, not one per group)", () => {
    const { users, actual } = reorg(1, "a", "b");
    expect(stepIds(planOf({ users, actual }))).toEqual(["updateMapping:p0000"]);
  });

  test("someone alone in one of their requests goes to a PUT; the others stay in bulk", () => {
    // p0000..p0002 move a -> b; p0000 also joins c alone: a PUT costs 1, the add to c 1: a tie.
    const { users, actual } = reorg(3, "a", "b");
    users[0] = { ...users[0]!, groups: ["b", "c"] };
    const p = planOf({ users, actual: { ...actual, groups: [...actual.groups!, aGroup({ id: "c" })] } });
    expect(stepIds(p)).toEqual(["updateMapping:p0000", "removeMembers:a", "addMembers:b"]);
    expect(members(p, "addMembers:b")).toEqual(["p0001", "p0002"]);
  });

  test("taking one person out can leave another alone: repeated until nothing changes", () => {
    // x joins g1 and g2, y joins g2 and g3: x is alone in g1, goes to a PUT; then y is alone in
    // g2 and g3: a PUT too. Two PUTs instead of three bulk requests.
    const x = aSyncedUser("x@x.com", { groups: [] });
    const y = aSyncedUser("y@x.com", { groups: [] });
    const p = planOf({
      users: [
        { ...x.user, groups: ["g1", "g2"] },
        { ...y.user, groups: ["g2", "g3"] },
      ],
      actual: {
        idpUsers: [x.idp, y.idp],
        mappings: [x.mapping, y.mapping],
        groups: ["g1", "g2", "g3"].map((id) => aGroup({ id })),
      },
    });
    expect(stepIds(p)).toEqual(["updateMapping:x", "updateMapping:y"]);
  });
});

describe("the summary counts people, and bulk requests apart", () => {
  const { users, actual } = reorg(4, "a", "b");
  users[0] = { ...users[0]!, groups: ["a", "b"] };
  const p = planOf({ users, actual });

  test("people changed, membership per group, bulk moves and their requests", () => {
    const s = summarizePlan(p);
    expect(s.people).toMatchObject({ add: 0, change: 4, fields: { groups: 4 } });
    expect(s.membership).toEqual({ a: { add: 0, remove: 3 }, b: { add: 4, remove: 0 } });
    expect(s.bulk).toEqual({
      people: 4,
      requests: 2,
      groups: { a: { add: 0, remove: 3, requests: 1 }, b: { add: 4, remove: 0, requests: 1 } },
    });
  });

  test("done: a person moved in bulk counts once every bulk step that moves them succeeded", () => {
    // p0000 only joins b; the others join b and leave a, whose request failed.
    const done = summarizeDone(p, new Set(["addMembers:b"]));
    expect(done.people.change).toBe(1);
    expect(summarizeDone(p, new Set(["addMembers:b", "removeMembers:a"])).people.change).toBe(4);
    expect(summarizeDone(p, new Set(["removeMembers:a"])).people.change).toBe(0);
  });
});
