/**
 * Never a moment unfiltered (issue 29): over random organizations and desired states, carry out a
 * plan's steps one by one, in a random order its dependencies allow (as the executor may), on the
 * plan's own model of who is in which group, who holds which grant and which filters exist. No step
 * may let a person reach a workspace without a filter the desired state gives them there (their own,
 * or one of a group they are in) that was not already missing before the plan. Re-planning the end
 * state is empty for filters. Plus table cases for the guard and for filters made by hand.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { MANAGED_TAG, managedFilterId, renderMaql, type ActualDataFilter } from "../../src/data-filters.js";
import type { DesiredDataFilter, DesiredGroup, DesiredUser } from "../../src/desired/types.js";
import { plan } from "../../src/plan/index.js";
import type { Policy } from "../../src/plan/policy.js";
import type { Plan, Step } from "../../src/plan/types.js";
import type { ActualState, Mapping } from "../../src/service/types.js";
import { aDesiredGroup, aGroup, aPolicy, aUser, anIdpUser } from "./builders.js";

const WS = ["w1", "w2"];
const GROUPS = ["g1", "g2", "g3"];
const USERS = ["u0", "u1", "u2", "u3"];

const filterSpec: fc.Arbitrary<string[] | undefined> = fc.option(
  fc.constantFrom<string[]>(["A"], ["A", "B"], ["B"]),
  { nil: undefined },
);
const filters = fc.record({ w1: filterSpec, w2: filterSpec });
const grants = fc.subarray(WS);
const world = fc.record({
  groups: fc.tuple(
    ...GROUPS.map((_, i) =>
      fc.record({
        exists: fc.boolean(),
        parent:
          i === 0
            ? fc.constant(undefined)
            : fc.option(fc.constantFrom(...GROUPS.slice(0, i)), { nil: undefined }),
        grants,
        filters,
        desired: fc.option(fc.record({ grants, filters, parent: fc.boolean() }), { nil: undefined }),
      }),
    ),
  ),
  users: fc.tuple(
    ...USERS.map(() =>
      fc.record({
        mapped: fc.boolean(),
        groups: fc.subarray(GROUPS),
        grants,
        filters,
        desired: fc.option(
          fc.record({
            groups: fc.subarray(GROUPS),
            grants: fc.option(grants, { nil: undefined }),
            filters: fc.option(filters, { nil: undefined }),
          }),
          { nil: undefined },
        ),
      }),
    ),
  ),
  mode: fc.constantFrom("incremental", "full"),
  order: fc.array(fc.nat(), { minLength: 64, maxLength: 64 }),
});
type World = typeof world extends fc.Arbitrary<infer T> ? T : never;

const desiredFilters = (f: World["users"][number]["filters"]): DesiredDataFilter[] =>
  WS.flatMap((ws) => {
    const v = f[ws as "w1" | "w2"];
    return v ? [{ workspace: ws, maql: renderMaql("r", v), label: "r", values: [...v] }] : [];
  });

function build(w: World): {
  actual: ActualState;
  desired: { users: DesiredUser[]; groups: DesiredGroup[]; files: string[] };
  policy: Policy;
} {
  const actual: ActualState = {
    idpUsers: [],
    mappings: [{ id: "admin", groups: [] }],
    groups: [],
    callerId: "admin",
    permissions: { workspaces: WS.map((id) => ({ id })), assignments: [], organization: [] },
    dataFilters: { workspaces: WS, filters: [] },
  };
  const filter = (ws: string, a: ActualDataFilter["assignee"], values: string[]): ActualDataFilter => ({
    id: managedFilterId(ws, a),
    workspace: ws,
    assignee: a,
    maql: renderMaql("r", values),
    tags: [MANAGED_TAG],
    managed: true,
  });
  const groups: DesiredGroup[] = [];
  w.groups.forEach((g, i) => {
    const id = GROUPS[i]!;
    const a = { type: "userGroup" as const, id };
    if (g.exists) {
      actual.groups.push(
        aGroup({ id, parents: g.parent && w.groups[GROUPS.indexOf(g.parent)]?.exists ? [g.parent] : [] }),
      );
      for (const ws of g.grants)
        actual.permissions!.assignments.push({
          workspace: ws,
          assignee: a,
          permissions: ["VIEW"],
          hierarchy: [],
        });
      for (const f of desiredFilters(g.filters))
        actual.dataFilters!.filters.push(filter(f.workspace, a, f.values!));
    }
    if (g.desired)
      groups.push(
        aDesiredGroup({
          id,
          parents: g.desired.parent && g.parent ? [g.parent] : [],
          workspaces: g.desired.grants.map((ws) => ({ workspace: ws, permissions: ["VIEW"], hierarchy: [] })),
          dataFilters: desiredFilters(g.desired.filters),
        }),
      );
  });
  const existing = new Set(actual.groups.map((g) => g.id));
  const declared = new Set(groups.map((g) => g.id));
  const users: DesiredUser[] = [];
  w.users.forEach((u, i) => {
    const id = USERS[i]!;
    const email = `${id}@a.com`;
    const a = { type: "user" as const, id };
    if (u.mapped) {
      actual.idpUsers.push(anIdpUser({ email, authenticationId: `auth-${id}` }));
      const m: Mapping = {
        id,
        email,
        authenticationId: `auth-${id}`,
        groups: u.groups.filter((g) => existing.has(g)),
      };
      actual.mappings.push(m);
      for (const ws of u.grants)
        actual.permissions!.assignments.push({
          workspace: ws,
          assignee: a,
          permissions: ["VIEW"],
          hierarchy: [],
        });
      for (const f of desiredFilters(u.filters))
        actual.dataFilters!.filters.push(filter(f.workspace, a, f.values!));
    }
    const d = u.desired;
    if (d)
      users.push(
        aUser({
          email,
          id,
          groups: d.groups.filter((g) => existing.has(g) || declared.has(g)),
          ...(d.grants
            ? {
                workspaces: d.grants.map((ws) => ({
                  workspace: ws,
                  permissions: ["VIEW" as const],
                  hierarchy: [],
                })),
              }
            : {}),
          ...(d.filters ? { dataFilters: desiredFilters(d.filters) } : {}),
        }),
      );
  });
  const policy = aPolicy({
    mode: w.mode as Policy["mode"],
    maxDeletes: { count: 100 },
    permissions: { workspaces: ["*"], maxRemovals: { count: 100 }, allowOrganizationManage: false },
    dataFilters: { workspaces: ["*"], maxWidenings: { count: 100 } },
  });
  return { actual, desired: { users, groups, files: ["users.yaml"] }, policy };
}

/** The model the steps change: memberships, parents, grants and filters. */
interface Model {
  userGroups: Map<string, string[]>;
  parents: Map<string, string[]>;
  grants: Set<string>;
  filters: Set<string>;
}

function modelOf(actual: ActualState): Model {
  return {
    userGroups: new Map(actual.mappings.map((m) => [m.id, [...m.groups]])),
    parents: new Map(actual.groups.map((g) => [g.id, [...g.parents]])),
    grants: new Set(
      actual.permissions!.assignments.map((a) => `${a.workspace}|${a.assignee.type}/${a.assignee.id}`),
    ),
    filters: new Set(
      actual.dataFilters!.filters.map((f) => `${f.workspace}|${f.assignee.type}/${f.assignee.id}`),
    ),
  };
}

function carryOut(m: Model, s: Step): void {
  switch (s.kind) {
    case "createGroup":
    case "updateGroup":
      m.parents.set(s.target, [...s.after.parents]);
      break;
    case "createMapping":
    case "updateMapping":
      m.userGroups.set(s.target, [...s.after.groups]);
      break;
    case "deleteMapping":
      m.userGroups.delete(s.target);
      break;
    case "addMembers":
    case "removeMembers":
      for (const u of s.members) {
        const g = new Set(m.userGroups.get(u) ?? []);
        if (s.kind === "addMembers") g.add(s.target);
        else g.delete(s.target);
        m.userGroups.set(u, [...g]);
      }
      break;
    case "grantWorkspacePermissions":
    case "revokeWorkspacePermissions":
      for (const c of s.changes) {
        const key = `${s.target}|${c.assignee.type}/${c.assignee.id}`;
        if (c.after.permissions.length > 0) m.grants.add(key);
        else m.grants.delete(key);
      }
      break;
    case "createDataFilter":
    case "updateDataFilter":
      m.filters.add(`${s.workspace}|${s.assignee.type}/${s.assignee.id}`);
      break;
    case "deleteDataFilter":
      m.filters.delete(`${s.workspace}|${s.assignee.type}/${s.assignee.id}`);
      break;
    default:
      break;
  }
}

/** (user, workspace, holder) triples where the user reaches the workspace and the holder's wanted filter is missing. */
function unfiltered(m: Model, wanted: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  const above = (groups: readonly string[]): Set<string> => {
    const seen = new Set<string>();
    const walk = (g: string): void => {
      if (seen.has(g)) return;
      seen.add(g);
      for (const p of m.parents.get(g) ?? []) walk(p);
    };
    groups.forEach(walk);
    return seen;
  };
  for (const [u, groups] of m.userGroups) {
    const holders = [`user/${u}`, ...[...above(groups)].map((g) => `userGroup/${g}`)];
    for (const ws of WS) {
      if (!holders.some((h) => m.grants.has(`${ws}|${h}`))) continue;
      for (const h of holders)
        if (wanted.has(`${ws}|${h}`) && !m.filters.has(`${ws}|${h}`)) out.add(`${u} ${ws} ${h}`);
    }
  }
  return out;
}

/** Steps in a random order their dependencies allow; held-back steps are not carried out. */
function* randomOrder(p: Plan, picks: readonly number[]): Generator<Step> {
  const todo = p.steps.filter((s) => s.status === "planned");
  const done = new Set(p.steps.filter((s) => s.status !== "planned").map((s) => s.id));
  for (let n = 0; todo.length > 0; n++) {
    const ready = todo.filter((s) =>
      s.dependsOn.every((d) => done.has(d) || !p.steps.some((x) => x.id === d)),
    );
    expect(ready.length, "a dependency cycle").toBeGreaterThan(0);
    const s = ready[(picks[n % picks.length] ?? 0) % ready.length]!;
    todo.splice(todo.indexOf(s), 1);
    done.add(s.id);
    yield s;
  }
}

describe("data filters: never a moment unfiltered", () => {
  test("no step of any order the dependencies allow gives access without the filters", () => {
    fc.assert(
      fc.property(world, (w) => {
        const input = build(w);
        const p = plan({ ...input, profile: "v1" });
        const wanted = new Set<string>();
        for (const g of input.desired.groups)
          for (const f of g.dataFilters ?? []) wanted.add(`${f.workspace}|userGroup/${g.id}`);
        for (const u of input.desired.users)
          for (const f of u.dataFilters ?? []) wanted.add(`${f.workspace}|user/${u.id}`);
        // The saved order keeps its promise: every dependency is an earlier step.
        const at = new Map(p.steps.map((s, i) => [s.id, i] as const));
        for (const [i, s] of p.steps.entries())
          for (const d of s.dependsOn) expect(at.get(d) ?? -1, `${s.id} waits for ${d}`).toBeLessThan(i);
        const m = modelOf(input.actual);
        let before = unfiltered(m, wanted);
        for (const s of randomOrder(p, w.order)) {
          carryOut(m, s);
          const now = unfiltered(m, wanted);
          for (const v of now) expect(before.has(v), `after ${s.id}: ${v} reaches it unfiltered`).toBe(true);
          before = now;
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("data filters: table cases", () => {
  const base = (): ReturnType<typeof build> =>
    build({
      groups: [
        {
          exists: true,
          parent: undefined,
          grants: ["w1"],
          filters: { w1: ["A", "B"], w2: undefined },
          desired: undefined,
        },
        {
          exists: false,
          parent: undefined,
          grants: [],
          filters: { w1: undefined, w2: undefined },
          desired: undefined,
        },
        {
          exists: false,
          parent: undefined,
          grants: [],
          filters: { w1: undefined, w2: undefined },
          desired: undefined,
        },
      ],
      users: USERS.map(() => ({
        mapped: false,
        groups: [],
        grants: [],
        filters: { w1: undefined, w2: undefined },
        desired: undefined,
      })),
      mode: "incremental",
      order: [0],
    }) as ReturnType<typeof build>;
  const withGroup = (filters: World["users"][number]["filters"], input = base()) => {
    input.desired.groups = [aDesiredGroup({ id: "g1", dataFilters: desiredFilters(filters) })];
    input.desired.users = [aUser({ email: "x@a.com", id: "x", groups: ["g1"] })];
    return input;
  };

  test("the same values in another order plan nothing; fewer values narrow without the guard", () => {
    const same = withGroup({ w1: ["B", "A"], w2: undefined });
    expect(plan({ ...same, profile: "v1" }).steps.filter((s) => s.kind.endsWith("DataFilter"))).toEqual([]);
    const narrow = plan({ ...withGroup({ w1: ["A"], w2: undefined }), profile: "v1" });
    const step = narrow.steps.find((s) => s.kind === "updateDataFilter");
    expect(step).toMatchObject({ widening: false, status: "planned" });
    expect(narrow.dataFilterGuard).toEqual({ limit: 100, wanted: 0, managedFilters: 1 });
  });

  test("a widening while access remains is held back over dataFilters.maxWidenings", () => {
    const input = withGroup({ w1: ["A", "B", "C"], w2: undefined });
    input.policy.dataFilters = { workspaces: ["*"], maxWidenings: { count: 0 } };
    const p = plan({ ...input, profile: "v1" });
    expect(p.steps.find((s) => s.kind === "updateDataFilter")).toMatchObject({
      widening: true,
      status: "heldBack",
    });
    expect(p.dataFilterGuard).toEqual({ limit: 0, wanted: 1, managedFilters: 1 });
    input.policy.dataFilters.allowWidenings = 1;
    expect(plan({ ...input, profile: "v1" }).steps.find((s) => s.kind === "updateDataFilter")?.status).toBe(
      "planned",
    );
  });

  test("a filter usersync did not make is never touched, even one on the same assignee", () => {
    const input = withGroup({ w1: undefined, w2: ["A"] });
    input.actual.dataFilters!.filters = [
      {
        id: "hand",
        workspace: "w2",
        assignee: { type: "userGroup", id: "g1" },
        maql: '{label/r} = "Z"',
        tags: [],
        managed: false,
      },
      {
        id: "tagged-but-not-ours",
        workspace: "w2",
        assignee: { type: "userGroup", id: "g1" },
        maql: "x",
        tags: [MANAGED_TAG],
        managed: false,
      },
    ];
    input.policy.mode = "full";
    const p = plan({ ...input, profile: "v1" });
    const filterSteps = p.steps.filter((s) => s.kind.endsWith("DataFilter"));
    expect(filterSteps.map((s) => s.id)).toEqual(["createDataFilter:w2/userGroup/g1"]);
  });

  /** `x`, mapped in g1 (VIEW on w1 through it) with a filter of its own on w1. */
  const withMover = (input = base()) => {
    input.actual.idpUsers.push(anIdpUser({ email: "x@a.com", authenticationId: "auth-x" }));
    input.actual.mappings.push({ id: "x", email: "x@a.com", authenticationId: "auth-x", groups: ["g1"] });
    input.actual.dataFilters!.filters.push({
      id: managedFilterId("w1", { type: "user", id: "x" }),
      workspace: "w1",
      assignee: { type: "user", id: "x" },
      maql: renderMaql("r", ["A"]),
      tags: [MANAGED_TAG],
      managed: true,
    });
    input.policy.mode = "full";
    input.policy.dataFilters = { workspaces: ["*"], maxWidenings: { count: 0 } };
    return input;
  };

  test("a mover to a team without access: the filter goes after the move, and it is no widening (issue 37)", () => {
    const input = withMover();
    input.desired.users = [aUser({ email: "x@a.com", id: "x", groups: [], dataFilters: [] })];
    const p = plan({ ...input, profile: "v1" });
    const del = p.steps.find((s) => s.id === "deleteDataFilter:w1/user/x");
    expect(del).toMatchObject({ widening: false, status: "planned" });
    const move = p.steps.find((s) => s.kind === "removeMembers" || s.id === "updateMapping:x");
    expect(move).toBeDefined();
    expect(del?.dependsOn).toContain(move!.id);
    expect(p.dataFilterGuard?.wanted).toBe(0);
    // Staying in g1, the same removal is a widening, held back at maxWidenings 0.
    input.desired.users = [aUser({ email: "x@a.com", id: "x", groups: ["g1"], dataFilters: [] })];
    expect(plan({ ...input, profile: "v1" }).steps.find((s) => s.id === del!.id)).toMatchObject({
      widening: true,
      status: "heldBack",
    });
  });

  test("a filter on a parent workspace guards the workspaces below it (issue 37)", () => {
    const input = base();
    input.actual.permissions!.workspaces = [{ id: "w1" }, { id: "w2", parent: "w1" }];
    input.actual.permissions!.assignments = [
      { workspace: "w2", assignee: { type: "userGroup", id: "g1" }, permissions: ["VIEW"], hierarchy: [] },
    ];
    input.policy.mode = "full";
    input.policy.dataFilters = { workspaces: ["*"], maxWidenings: { count: 0 } };
    input.desired.groups = [aDesiredGroup({ id: "g1", dataFilters: [] })];
    const p = plan({ ...input, profile: "v1" });
    expect(p.steps.find((s) => s.id === "deleteDataFilter:w1/userGroup/g1")).toMatchObject({
      widening: true,
      status: "heldBack",
    });
    // With the access below taken away in the same plan, it is none, and it waits for the revoke.
    input.desired.groups = [aDesiredGroup({ id: "g1", workspaces: [], dataFilters: [] })];
    const q = plan({ ...input, profile: "v1" });
    expect(q.steps.find((s) => s.id === "deleteDataFilter:w1/userGroup/g1")).toMatchObject({
      widening: false,
      status: "planned",
      dependsOn: ["revokeWorkspacePermissions:w2"],
    });
  });

  test("a person outside policy.scope by their mapping, or protected by their login's email, gains and loses no filter", () => {
    const input = withMover();
    input.policy.scope = { groups: ["g2"] };
    input.desired.users = [aUser({ email: "x@a.com", id: "x", groups: ["g2"], dataFilters: [] })];
    const out = plan({ ...input, profile: "v1" });
    expect(out.steps.filter((s) => s.kind.endsWith("DataFilter"))).toEqual([]);
    expect(out.notices).toContainEqual({
      kind: "refused",
      target: "mapping:x",
      message: "outside policy.scope; its data filters are not planned",
    });
    input.policy.scope = {};
    input.policy.protect = ["x@a.com"];
    // Protected only through the login the mapping links to: the mapping has no email of its own.
    delete input.actual.mappings.find((m) => m.id === "x")!.email;
    input.desired.users = [aUser({ email: "new-x@a.com", id: "x", groups: ["g1"], dataFilters: [] })];
    const prot = plan({ ...input, profile: "v1" });
    expect(prot.steps.filter((s) => s.kind.endsWith("DataFilter"))).toEqual([]);
    expect(prot.notices).toContainEqual({
      kind: "protected",
      target: "mapping:x",
      message: "protected by policy; its data filters are not planned",
    });
  });

  test("without a dataFilters scope nothing is planned or listed", () => {
    const input = withGroup({ w1: ["A"], w2: undefined });
    delete input.policy.dataFilters;
    const p = plan({ ...input, profile: "v1" });
    expect(p.dataFilterGuard).toBeUndefined();
    expect(p.steps.some((s) => s.kind.endsWith("DataFilter"))).toBe(false);
  });
});

describe("data filters: saved plans", () => {
  test("a plan's filter steps survive a save and read back; a changed filter makes its step stale", async () => {
    const { serializePlan, parsePlan } = await import("../../src/plan/index.js");
    const { findStaleSteps } = await import("../../src/apply/index.js");
    const input = build({
      groups: [
        {
          exists: true,
          parent: undefined,
          grants: ["w1"],
          filters: { w1: ["A"], w2: undefined },
          desired: { grants: ["w1"], filters: { w1: ["A", "B"], w2: ["C"] }, parent: false },
        },
        {
          exists: false,
          parent: undefined,
          grants: [],
          filters: { w1: undefined, w2: undefined },
          desired: undefined,
        },
        {
          exists: false,
          parent: undefined,
          grants: [],
          filters: { w1: undefined, w2: undefined },
          desired: undefined,
        },
      ],
      users: USERS.map(() => ({
        mapped: false,
        groups: [],
        grants: [],
        filters: { w1: undefined, w2: undefined },
        desired: undefined,
      })),
      mode: "incremental",
      order: [0],
    });
    const p = plan({ ...input, profile: "v1" });
    expect(p.steps.map((s) => s.id).filter((id) => id.includes("DataFilter"))).toEqual([
      "updateDataFilter:w1/userGroup/g1",
      "createDataFilter:w2/userGroup/g1",
    ]);
    const read = parsePlan(serializePlan(p), "plan.json");
    expect(read.steps).toEqual(p.steps);
    expect(findStaleSteps(read, input.actual).size).toBe(0);
    const changed = structuredClone(input.actual);
    changed.dataFilters!.filters[0]!.maql = '{label/r} = "Z"';
    expect([...findStaleSteps(read, changed)]).toEqual(["updateDataFilter:w1/userGroup/g1"]);
  });
});
