/**
 * Never a moment unfiltered, on the emulator (issues 29 and 37): over random organizations with a
 * workspace hierarchy (filters on a parent, access on its children), movers between groups with
 * and without access, full and incremental mode, `policy.scope` (unset, by group, by email domain)
 * and `policy.protect`, a plan is listed from the emulator and applied to it by the executor with
 * random latency (so its steps interleave differently each run). After EVERY write the emulator's
 * state is checked: no person reaches a workspace (directly, through groups, through the
 * hierarchy) while a filter they must have there or on a workspace above is missing or says
 * something that is neither its old nor its new condition. A filter they must have: one the
 * desired state gives a holder usersync manages, and one that exists and is not removed or
 * loosened as a counted and allowed widening. Filters of holders usersync may not touch never
 * change. The plan's own model of the same property is test/plan/data-filters-property.test.ts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyPlan } from "../../src/apply/index.js";
import { MANAGED_TAG, managedFilterId, renderMaql } from "../../src/data-filters.js";
import type { DesiredDataFilter, DesiredGroup, DesiredUser } from "../../src/desired/types.js";
import { startEmulator, type EmulatorSeed } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { createLogger } from "../../src/logging.js";
import { dataFilterListing, permissionListing, plan, type Policy } from "../../src/plan/index.js";
import { createClient, listActualState } from "../../src/service/index.js";
import { filterLeaks, requireFilter } from "../helpers/filter-invariant.js";
import { noPasswords } from "./builders.js";
import { aDesiredGroup, aDesiredUser, aPolicy, desiredOf } from "./scenario.js";

/** P is the parent of C1 and C2; W stands alone. */
const WS = ["P", "C1", "C2", "W"] as const;
const PARENT: Record<string, string | undefined> = { C1: "P", C2: "P" };
const GROUPS = ["g1", "g2", "g3"];
const USERS = ["u0", "u1", "u2", "u3", "u4"];

const grant = fc.constantFrom<"none" | "view" | "hierarchy">("none", "view", "view", "hierarchy");
const grants = fc.record({ P: grant, C1: grant, C2: grant, W: grant });
const filter = fc.option(fc.constantFrom<string[]>(["A"], ["A", "B"], ["B"]), { nil: undefined });
const filters = fc.record({ P: filter, C1: filter, C2: filter, W: filter });
type Grants = typeof grants extends fc.Arbitrary<infer T> ? T : never;
type Filters = typeof filters extends fc.Arbitrary<infer T> ? T : never;

const world = fc.record({
  groups: fc.tuple(
    ...GROUPS.map((_, i) =>
      fc.record({
        exists: fc.boolean(),
        parent: i === 2 ? fc.option(fc.constantFrom("g1", "g2"), { nil: undefined }) : fc.constant(undefined),
        grants,
        filters,
        desired: fc.option(fc.record({ grants, filters }), { nil: undefined }),
      }),
    ),
  ),
  users: fc.tuple(
    ...USERS.map(() =>
      fc.record({
        mapped: fc.constant(true),
        domain: fc.constantFrom("a.com", "b.com"),
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
  mode: fc.constantFrom<Policy["mode"]>("incremental", "full"),
  scope: fc.constantFrom<Policy["scope"]>({}, { groups: ["g1"] }, { emailDomains: ["a.com"] }),
  protect: fc.constantFrom<string[]>([], ["u1@a.com", "u1@b.com"], ["u2", "g2"]),
  maxWidenings: fc.constantFrom(0, 100),
  latencySeed: fc.integer({ min: 1, max: 1_000_000 }),
});
type World = typeof world extends fc.Arbitrary<infer T> ? T : never;

const maqlOf = (values: readonly string[]): string => renderMaql("r", values);
const wantFilters = (f: Filters): DesiredDataFilter[] =>
  WS.flatMap((ws) => {
    const v = f[ws];
    return v ? [{ workspace: ws, maql: maqlOf(v), label: "r", values: [...v] }] : [];
  });
const wantGrants = (g: Grants) =>
  WS.flatMap((ws) =>
    g[ws] === "none"
      ? []
      : [
          {
            workspace: ws,
            permissions: ["VIEW" as const],
            hierarchy: g[ws] === "hierarchy" ? ["VIEW" as const] : [],
          },
        ],
  );

function seedOf(w: World): EmulatorSeed {
  const existing = new Set(GROUPS.filter((_, i) => w.groups[i]!.exists));
  const seed: EmulatorSeed = {
    idpUsers: [{ email: "admin@a.com", displayName: "admin", authenticationId: "auth-admin" }],
    mappings: [{ id: "admin", authenticationId: "auth-admin", email: "admin@a.com", groups: [] }],
    groups: [],
    workspaces: WS.map((id) => ({ id, ...(PARENT[id] ? { parent: PARENT[id] } : {}), permissions: [] })),
    dataFilters: [],
  };
  const add = (who: { user: string } | { userGroup: string }, g: Grants, f: Filters): void => {
    for (const ws of WS) {
      if (g[ws] !== "none")
        seed
          .workspaces!.find((x) => x.id === ws)!
          .permissions!.push({
            ...who,
            permissions: ["VIEW"],
            ...(g[ws] === "hierarchy" ? { hierarchy: ["VIEW"] } : {}),
          });
      const v = f[ws];
      const a =
        "user" in who
          ? { type: "user" as const, id: who.user }
          : { type: "userGroup" as const, id: who.userGroup };
      if (v)
        seed.dataFilters!.push({
          workspace: ws,
          id: managedFilterId(ws, a),
          maql: maqlOf(v),
          tags: [MANAGED_TAG],
          ...who,
        });
    }
  };
  w.groups.forEach((g, i) => {
    const id = GROUPS[i]!;
    if (!g.exists) return;
    seed.groups!.push({ id, parents: g.parent && existing.has(g.parent) ? [g.parent] : [] });
    add({ userGroup: id }, g.grants, g.filters);
  });
  w.users.forEach((u, i) => {
    const id = USERS[i]!;
    const email = `${id}@${u.domain}`;
    seed.idpUsers!.push({ email, displayName: id, authenticationId: `auth-${id}` });
    seed.mappings!.push({
      id,
      authenticationId: `auth-${id}`,
      email,
      groups: u.groups.filter((g) => existing.has(g)),
    });
    add({ user: id }, u.grants, u.filters);
  });
  return seed;
}

function desiredOfWorld(w: World): { users: DesiredUser[]; groups: DesiredGroup[] } {
  const existing = new Set(GROUPS.filter((_, i) => w.groups[i]!.exists));
  const groups: DesiredGroup[] = [];
  w.groups.forEach((g, i) => {
    if (!g.desired) return;
    const id = GROUPS[i]!;
    groups.push(
      aDesiredGroup({
        id,
        parents: g.parent ? [g.parent] : [],
        workspaces: wantGrants(g.desired.grants),
        dataFilters: wantFilters(g.desired.filters),
      }),
    );
  });
  const declared = new Set([...existing, ...groups.map((g) => g.id)]);
  // A group's parent must exist or be declared.
  for (const g of groups) g.parents = (g.parents ?? []).filter((p) => declared.has(p));
  const users = w.users.flatMap((u, i) => {
    const d = u.desired;
    if (!d) return [];
    const id = USERS[i]!;
    return [
      aDesiredUser({
        id,
        email: `${id}@${u.domain}`,
        displayName: id,
        groups: d.groups.filter((g) => declared.has(g)),
        ...(d.grants ? { workspaces: wantGrants(d.grants) } : {}),
        ...(d.filters ? { dataFilters: wantFilters(d.filters) } : {}),
      }),
    ];
  });
  return { users, groups };
}

describe("data filters on the emulator: never a moment unfiltered", () => {
  it("after every write of any plan's apply, nobody reaches a workspace without the filters they must have", async () => {
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        const seed = seedOf(w);
        const checks: Array<() => void> = [];
        const onWrite = (): void => checks.forEach((c) => c());
        const emu: EmulatorHandle = await startEmulator({
          seed,
          onRequest: (e) => e.method !== "GET" && onWrite(),
        });
        const client = await createClient({
          baseUrl: emu.url,
          token: "dev-token",
          profile: "v1",
          requestsPerSecond: 0,
          logger: createLogger({ level: "silent" }),
        });
        try {
          const { users, groups } = desiredOfWorld(w);
          const desired = desiredOf(users, groups);
          const policy = aPolicy({
            mode: w.mode,
            scope: w.scope,
            protect: w.protect,
            permissions: { workspaces: ["*"], maxRemovals: { percent: 100 }, allowOrganizationManage: false },
            dataFilters: { workspaces: ["*"], maxWidenings: { count: w.maxWidenings } },
          });
          const actual = await listActualState(client, {
            permissions: permissionListing(desired, policy, 500),
            ...(dataFilterListing({ desired, policy })
              ? { dataFilters: dataFilterListing({ desired, policy })! }
              : {}),
          });
          const p = plan({ desired, actual, policy, profile: "v1" });
          const required = requiredFilters(seed, p, { users, groups });
          const initial = new Set(filterLeaks(emu.state(), required));
          const untouched = untouchedFilters(seed, w);
          // The plan names each of them that the desired state gives filters, with the reason.
          for (const h of untouched.holders) {
            const [type, id] = h.split("/") as [string, string];
            const row = type === "user" ? users.find((u) => u.id === id) : groups.find((g) => g.id === id);
            if (row?.dataFilters === undefined) continue;
            const target = type === "user" ? `mapping:${id}` : `group:${id}`;
            expect(
              p.notices.some(
                (n) => n.target === target && n.message.endsWith("its data filters are not planned"),
              ),
              target,
            ).toBe(true);
          }
          const leaks: string[] = [];
          checks.push(() => {
            for (const l of filterLeaks(emu.state(), required)) if (!initial.has(l)) leaks.push(l);
            const now = JSON.stringify(untouchedOf(emu.state().dataFilters ?? [], untouched.holders));
            if (now !== untouched.before)
              leaks.push(`a filter of a holder usersync may not touch changed: ${now}`);
          });
          emu.setFaults({ latencyMs: 1, jitterMs: 6, seed: w.latencySeed });
          const result = await applyPlan({ plan: p, client, concurrency: 3, passwords: noPasswords });
          expect(
            result.counts.failed,
            JSON.stringify(result.outcomes.filter((o) => o.outcome === "failed")),
          ).toBe(0);
          expect(
            leaks,
            p.steps.map((s) => `${s.id} <- ${s.dependsOn.join(",")} ${s.status}`).join("\n"),
          ).toEqual([]);
        } finally {
          await client.close();
          await emu.close();
        }
      }),
      { numRuns: 60 },
    );
  }, 300_000);
});

type PlanOf = ReturnType<typeof plan>;

/**
 * What must hold at every moment: each filter the desired state gives a managed holder (its new
 * condition, or its old one until it is changed), and each existing filter of a managed holder
 * that the plan does not remove or loosen as an allowed widening (its old condition, or its new).
 */
function requiredFilters(
  seed: EmulatorSeed,
  p: PlanOf,
  desired: { users: DesiredUser[]; groups: DesiredGroup[] },
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const old = new Map(
    (seed.dataFilters ?? []).map((f) => [
      `${f.workspace}|${f.user !== undefined ? `user/${f.user}` : `userGroup/${f.userGroup}`}`,
      f.maql,
    ]),
  );
  const widened = new Set(
    p.steps
      .filter(
        (s) =>
          (s.kind === "deleteDataFilter" || s.kind === "updateDataFilter") &&
          s.widening &&
          s.status === "planned",
      )
      .map((s) => s.target.replace("/", "|")),
  );
  const refused = new Set(
    p.notices.filter((n) => n.message.endsWith("its data filters are not planned")).map((n) => n.target),
  );
  const holders: Array<[string, DesiredDataFilter[] | undefined, string]> = [
    ...desired.groups.map(
      (g) =>
        [`userGroup/${g.id}`, g.dataFilters, `group:${g.id}`] as [
          string,
          DesiredDataFilter[] | undefined,
          string,
        ],
    ),
    ...desired.users.map(
      (u) =>
        [`user/${u.id}`, u.dataFilters, `mapping:${u.id}`] as [
          string,
          DesiredDataFilter[] | undefined,
          string,
        ],
    ),
  ];
  for (const [key, wanted, target] of holders) {
    if (wanted === undefined || refused.has(target)) continue;
    for (const f of wanted) {
      requireFilter(out, `${f.workspace}|${key}`, f.maql);
      const was = old.get(`${f.workspace}|${key}`);
      if (was !== undefined) requireFilter(out, `${f.workspace}|${key}`, was);
    }
  }
  for (const [k, maql] of old) if (!widened.has(k)) requireFilter(out, k, maql);
  return out;
}

/**
 * The holders whose filters must not change, worked out from the world (not from the plan): the
 * protected (by id or email, or a protected group) and those outside `policy.scope` (a user by the
 * row and by the mapping as it is, a group by its id).
 */
function untouchable(w: World): Set<string> {
  const out = new Set<string>();
  const existing = new Set(GROUPS.filter((_, i) => w.groups[i]!.exists));
  const declared = new Set(GROUPS.filter((_, i) => w.groups[i]!.exists || w.groups[i]!.desired));
  GROUPS.forEach((id) => {
    if (w.protect.includes(id) || (w.scope.groups !== undefined && !w.scope.groups.includes(id)))
      out.add(`userGroup/${id}`);
  });
  w.users.forEach((u, i) => {
    const id = USERS[i]!;
    const email = `${id}@${u.domain}`;
    const now = u.groups.filter((g) => existing.has(g));
    const inScope =
      w.scope.groups !== undefined
        ? (u.desired ? u.desired.groups.filter((g) => declared.has(g)) : now).includes("g1") &&
          now.includes("g1")
        : w.scope.emailDomains !== undefined
          ? w.scope.emailDomains.includes(u.domain)
          : true;
    if (w.protect.includes(id) || w.protect.includes(email) || !inScope) out.add(`user/${id}`);
  });
  return out;
}

function untouchedFilters(seed: EmulatorSeed, w: World): { holders: Set<string>; before: string } {
  const holders = untouchable(w);
  return { holders, before: JSON.stringify(untouchedOf(seed.dataFilters ?? [], holders)) };
}

function untouchedOf(all: NonNullable<EmulatorSeed["dataFilters"]>, holders: ReadonlySet<string>): string[] {
  return all
    .filter((f) => holders.has(f.user !== undefined ? `user/${f.user}` : `userGroup/${f.userGroup}`))
    .map((f) => `${f.workspace} ${f.user ?? ""}${f.userGroup ?? ""} ${f.maql}`)
    .sort();
}
