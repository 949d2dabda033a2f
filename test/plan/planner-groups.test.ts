/** Groups: create parents first, update, createReferenced, prune children first; DAG order. */
import { describe, expect, test } from "vitest";
import { checkGroupReferences } from "../../src/plan/index.js";
import {
  aDesiredGroup,
  aDesiredState,
  aGroup,
  aMapping,
  aPolicy,
  aUser,
  anActualState,
  anIdpUser,
  step,
  stepIds,
  planOf,
} from "./builders.js";

describe("declared groups", () => {
  test("created parents first, each depending on its parents' creation; mappings depend on their groups", () => {
    const p = planOf({
      groups: [
        aDesiredGroup({ id: "leaf", parents: ["mid"] }),
        aDesiredGroup({ id: "mid", parents: ["root"] }),
        aDesiredGroup({ id: "root", name: "Root" }),
      ],
      users: [aUser({ email: "a@x.com", id: "a", groups: ["leaf", "root"] })],
    });
    expect(stepIds(p)).toEqual([
      "createGroup:root",
      "createGroup:mid",
      "createGroup:leaf",
      "createCredentials:a@x.com",
      "createMapping:a",
    ]);
    expect(step(p, "createGroup:mid")).toMatchObject({
      dependsOn: ["createGroup:root"],
      after: { id: "mid", parents: ["root"] },
    });
    expect(step(p, "createGroup:root")).toMatchObject({ after: { id: "root", name: "Root", parents: [] } });
    expect(step(p, "createMapping:a").dependsOn).toEqual([
      "createCredentials:a@x.com",
      "createGroup:leaf",
      "createGroup:root",
    ]);
  });
  test("updated when name or parents differ; parents undefined keep the group's", () => {
    const actual = {
      groups: [
        aGroup({ id: "p" }),
        aGroup({ id: "g", name: "Old", parents: ["p"] }),
        aGroup({ id: "h", parents: ["p"] }),
      ],
    };
    const p = planOf({
      groups: [aDesiredGroup({ id: "g", name: "New" }), aDesiredGroup({ id: "h", parents: [] })],
      actual,
    });
    // h becomes a root, so it sorts before g (parents first, by depth after the plan).
    expect(stepIds(p)).toEqual(["updateGroup:h", "updateGroup:g"]);
    expect(step(p, "updateGroup:g")).toMatchObject({
      before: { name: "Old" },
      after: { id: "g", name: "New", parents: ["p"] },
      reason: "name differs",
    });
    expect(step(p, "updateGroup:h")).toMatchObject({ after: { parents: [] } });
  });
  test("groups.create and groups.update off", () => {
    const p = planOf({
      groups: [aDesiredGroup({ id: "new" }), aDesiredGroup({ id: "g", name: "x" })],
      actual: { groups: [aGroup({ id: "g" })] },
      policy: { groups: { create: false, update: false, prune: false, createReferenced: false } },
    });
    expect(stepIds(p)).toEqual([]);
    expect(p.notices.map((n) => `${n.kind} ${n.target}`)).toEqual(["refused group:new"]);
  });
  test("legacy: no parents", () => {
    const p = planOf({
      groups: [aDesiredGroup({ id: "g", parents: ["p"] }), aDesiredGroup({ id: "p" })],
      profile: "legacy",
    });
    expect(step(p, "createGroup:g")).toMatchObject({ dependsOn: [], after: { parents: [] } });
  });
});

describe("referenced groups", () => {
  const users = [aUser({ email: "a@x.com", groups: ["nowhere"] })];
  test("unknown-group problems name file, line and field unless createReferenced", () => {
    const desired = aDesiredState(users, [aDesiredGroup({ id: "g", parents: ["ghost"] })]);
    const problems = checkGroupReferences(desired, anActualState({ groups: [] }), aPolicy());
    expect(problems.map((x) => [x.rule, x.file, x.field, x.line])).toEqual([
      ["unknown-group", "users.csv", "groups", users[0]?.source.line],
      ["unknown-group", "groups.yaml", "parents", desired.groups[0]?.source.line],
    ]);
    expect(
      checkGroupReferences(
        desired,
        anActualState(),
        aPolicy({ groups: { ...aPolicy().groups, createReferenced: true } }),
      ),
    ).toEqual([]);
    expect(
      checkGroupReferences(
        aDesiredState(users),
        anActualState({ groups: [aGroup({ id: "nowhere" })] }),
        aPolicy(),
      ),
    ).toEqual([]);
  });
  test("createReferenced: created with name = id", () => {
    const p = planOf({
      users,
      policy: { groups: { create: true, update: true, prune: false, createReferenced: true } },
    });
    expect(step(p, "createGroup:nowhere")).toMatchObject({
      after: { id: "nowhere", name: "nowhere", parents: [] },
    });
  });
});

describe("prune (full mode)", () => {
  const policy = {
    mode: "full",
    deletions: "remove",
    maxDeletes: { count: 10 },
    groups: { create: true, update: true, prune: true, createReferenced: false },
  } as const;
  test("empty undeclared groups go children first, after the steps that empty them", () => {
    const actual = {
      idpUsers: [anIdpUser({ email: "gone@x.com" })],
      mappings: [
        aMapping({ id: "gone", authenticationId: "auth-gone@x.com", groups: ["child"] }),
        aMapping({ id: "keep", groups: ["used"] }),
      ],
      groups: [
        aGroup({ id: "parent" }),
        aGroup({ id: "child", parents: ["parent"] }),
        aGroup({ id: "used" }),
        aGroup({ id: "declared" }),
      ],
    };
    const users = [
      aUser({
        email: "keep@x.com",
        id: "keep",
        identity: "external",
        authenticationId: "s",
        groups: ["used"],
      }),
    ];
    const p = planOf({ users, groups: [aDesiredGroup({ id: "declared" })], actual, policy });
    expect(stepIds(p)).toEqual([
      "updateMapping:keep",
      "deleteCredentials:gone@x.com",
      "deleteMapping:gone",
      "deleteGroup:child",
      "deleteGroup:parent",
    ]);
    expect(step(p, "deleteGroup:child").dependsOn).toEqual(["deleteMapping:gone"]);
    expect(step(p, "deleteGroup:parent").dependsOn).toEqual(["deleteGroup:child"]);
  });
  test("held back together with user deletions", () => {
    const actual = { mappings: [aMapping({ id: "gone", groups: ["g"] })], groups: [aGroup({ id: "g" })] };
    const p = planOf({ actual, policy: { ...policy, maxDeletes: { count: 0 } } });
    expect(stepIds(p)).toEqual(["deleteMapping:gone (heldBack)", "deleteGroup:g (heldBack)"]);
  });
  test("incremental mode never prunes", () => {
    const p = planOf({
      actual: { groups: [aGroup({ id: "g" })] },
      policy: { ...policy, mode: "incremental" },
    });
    expect(stepIds(p)).toEqual([]);
  });
});

test("DAG order: groups → credentials → mappings → credential deletions → mapping deletions → group deletions", () => {
  const actual = {
    idpUsers: [anIdpUser({ email: "old@x.com" }), anIdpUser({ email: "upd@x.com", displayName: "x" })],
    mappings: [aMapping({ id: "old", authenticationId: "auth-old@x.com", groups: ["stale"] })],
    groups: [aGroup({ id: "stale" })],
  };
  const p = planOf({
    users: [
      aUser({ email: "new@x.com", id: "new", groups: ["g"] }),
      aUser({ email: "upd@x.com", id: "upd", displayName: "y" }),
    ],
    groups: [aDesiredGroup({ id: "g" })],
    actual,
    policy: {
      mode: "full",
      deletions: "remove",
      maxDeletes: { count: 5 },
      groups: { create: true, update: true, prune: true, createReferenced: false },
    },
  });
  expect(stepIds(p)).toEqual([
    "createGroup:g",
    "createCredentials:new@x.com",
    "updateCredentials:upd@x.com",
    "createMapping:new",
    "createMapping:upd",
    "deleteCredentials:old@x.com",
    "deleteMapping:old",
    "deleteGroup:stale",
  ]);
  const position = new Map(p.steps.map((s, i) => [s.id, i]));
  for (const [i, s] of p.steps.entries())
    for (const d of s.dependsOn) expect(position.get(d)).toBeLessThan(i);
});
