/**
 * One model of who reaches which workspace (DESIGN section 12): the planner's filter guard
 * (reach.ts) and the access review (effective-access.ts) read the same grant model, so over random
 * organizations (a workspace tree, nested groups, direct, group and hierarchy grants) they agree on
 * every person and workspace; and both agree with the service's rule written out plainly here.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { WorkspaceAssignment, WorkspacePermission } from "../../../src/permissions.js";
import { makeContext } from "../../../src/plan/context.js";
import { makeAccessModel } from "../../../src/plan/access/effective-access.js";
import { makeReach } from "../../../src/plan/access/reach.js";
import type { ActualState } from "../../../src/service/types.js";
import { aDesiredState, aGroup, aMapping, aPolicy } from "../builders.js";

const WS = ["w0", "w1", "w2", "w3", "w4", "w5"];
const GROUPS = ["g0", "g1", "g2", "g3"];
const USERS = ["u0", "u1", "u2", "u3"];
const PERMS: WorkspacePermission[] = ["ANALYZE", "VIEW"];

const org = fc.record({
  // Each workspace's parent is an earlier one, or none: a forest.
  parents: fc.tuple(...WS.map((_, i) => fc.option(fc.nat({ max: Math.max(0, i - 1) }), { nil: undefined }))),
  groupParents: fc.tuple(...GROUPS.map((_, i) => fc.subarray(GROUPS.slice(0, i)))),
  members: fc.tuple(...USERS.map(() => fc.subarray(GROUPS))),
  // One grant per workspace and holder, as the service lists them.
  grants: fc.uniqueArray(
    fc.record({
      workspace: fc.constantFrom(...WS),
      holder: fc.constantFrom(...USERS.map((u) => `user/${u}`), ...GROUPS.map((g) => `userGroup/${g}`)),
      permissions: fc.subarray(PERMS),
      hierarchy: fc.subarray(PERMS),
    }),
    { maxLength: 8, selector: (g) => `${g.workspace} ${g.holder}` },
  ),
});
type Org = typeof org extends fc.Arbitrary<infer T> ? T : never;

function actualOf(o: Org): ActualState {
  const assignments: WorkspaceAssignment[] = o.grants.map((g) => {
    const [type, id] = g.holder.split("/") as ["user" | "userGroup", string];
    return {
      workspace: g.workspace,
      assignee: { type, id },
      permissions: g.permissions,
      hierarchy: g.hierarchy,
    };
  });
  return {
    idpUsers: [],
    mappings: USERS.map((id, i) => aMapping({ id, groups: o.members[i]! })),
    groups: GROUPS.map((id, i) => aGroup({ id, parents: o.groupParents[i]! })),
    permissions: {
      workspaces: WS.map((id, i) => {
        const p = i === 0 ? undefined : o.parents[i];
        return p === undefined ? { id } : { id, parent: WS[p]! };
      }),
      assignments,
    },
  };
}

/** The service's rule, plainly: a grant of the user or a group above them, on the workspace or (hierarchy) above it. */
function plainReach(a: ActualState, user: string, ws: string): boolean {
  const groups = new Set<string>();
  const todo = [...a.mappings.find((m) => m.id === user)!.groups];
  while (todo.length > 0) {
    const g = todo.pop()!;
    if (groups.has(g)) continue;
    groups.add(g);
    todo.push(...a.groups.find((x) => x.id === g)!.parents);
  }
  const above: string[] = [];
  for (let at: string | undefined = ws; at !== undefined;)
    at = (above.push(at), a.permissions!.workspaces.find((w) => w.id === at)?.parent);
  return a.permissions!.assignments.some(
    (g) =>
      (g.assignee.type === "user" ? g.assignee.id === user : groups.has(g.assignee.id)) &&
      ((g.workspace === ws && g.permissions.length + g.hierarchy.length > 0) ||
        (above.slice(1).includes(g.workspace) && g.hierarchy.length > 0)),
  );
}

describe("one reach model for the planner's guard and the review", () => {
  test("reach.after and the review's effective access agree with each other and with the service's rule", () => {
    fc.assert(
      fc.property(org, (o) => {
        const actual = actualOf(o);
        const ctx = makeContext({
          desired: aDesiredState([]),
          actual,
          policy: aPolicy({ permissions: { ...aPolicy().permissions, workspaces: ["*"] } }),
          profile: "v1",
        });
        const reach = makeReach(ctx);
        const model = makeAccessModel({
          workspaces: actual.permissions!.workspaces,
          assignments: actual.permissions!.assignments,
          groupParents: new Map(actual.groups.map((g) => [g.id, g.parents])),
          filters: [],
        });
        for (const [i, user] of USERS.entries()) {
          const reviewed = new Set(model.accessOf(user, [...o.members[i]!].sort()).map((a) => a.workspace));
          for (const ws of WS) {
            const plain = plainReach(actual, user, ws);
            expect(reach.after({ type: "user", id: user }, ws), `${user} ${ws} guard`).toBe(plain);
            expect(reviewed.has(ws), `${user} ${ws} review`).toBe(plain);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  test("a hierarchy grant two levels up reaches the grandchild, a plain grant does not", () => {
    const o: Org = {
      parents: [undefined, 0, 1, undefined, undefined, undefined],
      groupParents: [[], ["g0"], [], []],
      members: [["g1"], [], [], []],
      grants: [
        { workspace: "w0", holder: "userGroup/g0", permissions: [], hierarchy: ["VIEW"] },
        { workspace: "w3", holder: "userGroup/g0", permissions: ["VIEW"], hierarchy: [] },
      ],
    };
    const actual = actualOf(o);
    const model = makeAccessModel({
      workspaces: actual.permissions!.workspaces,
      assignments: actual.permissions!.assignments,
      groupParents: new Map(actual.groups.map((g) => [g.id, g.parents])),
      filters: [],
    });
    const rows = model.accessOf("u0", ["g1"]);
    expect(rows.map((r) => r.workspace)).toEqual(["w0", "w1", "w2", "w3"]);
    expect(rows[2]!.reasons.map((r) => r.text)).toEqual(["group g1 -> g0, hierarchy from w0 > w1 > w2"]);
  });
});
