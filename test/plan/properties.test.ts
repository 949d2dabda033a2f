/** fast-check properties of the planner over small random desired and actual states. */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { DesiredState, DesiredUser } from "../../src/desired/types.js";
import { plan, serializePlan } from "../../src/plan/index.js";
import type { Policy } from "../../src/plan/policy.js";
import type { Plan } from "../../src/plan/types.js";
import type { ActualState, ApiProfile, Mapping } from "../../src/service/types.js";
import { aDesiredGroup, aGroup, aPolicy, aUser, anIdpUser } from "./builders.js";

const RUNS = { numRuns: 100 };
const GROUPS = ["g1", "g2", "g3"];

const slot = fc.record({
  domain: fc.constantFrom("a.com", "b.com"),
  idp: fc.option(fc.constantFrom("A", "B"), { nil: undefined }),
  mapping: fc.option(
    fc.record({
      auth: fc.constantFrom("own", "other", "none", "ext"),
      groups: fc.subarray(GROUPS),
      firstname: fc.option(fc.constantFrom("F", "G"), { nil: undefined }),
    }),
    { nil: undefined },
  ),
  desired: fc.option(
    fc.record({
      state: fc.constantFrom("present", "present", "absent"),
      identity: fc.constantFrom("builtin", "builtin", "external"),
      emailChange: fc.boolean(),
      displayName: fc.option(fc.constantFrom("A", "B"), { nil: undefined }),
      firstname: fc.option(fc.constantFrom("F", "G"), { nil: undefined }),
      groups: fc.option(fc.subarray(GROUPS), { nil: undefined }),
    }),
    { nil: undefined },
  ),
});
type Slot = typeof slot extends fc.Arbitrary<infer T> ? T : never;

function world(slots: Slot[]): { desired: DesiredState; actual: ActualState } {
  const actual: ActualState = {
    idpUsers: [],
    mappings: [],
    groups: [aGroup({ id: "g1" }), aGroup({ id: "g2", parents: ["g1"] })],
  };
  const users: DesiredUser[] = [];
  const n = slots.length;
  slots.forEach((s, i) => {
    const email = `u${i}@${s.domain}`;
    if (s.idp) actual.idpUsers.push(anIdpUser({ email, displayName: s.idp, authenticationId: `auth-u${i}` }));
    if (s.mapping) {
      const auth = { own: `auth-u${i}`, other: `auth-u${(i + 1) % n}`, none: undefined, ext: `sub-u${i}` }[
        s.mapping.auth
      ];
      const m: Mapping = {
        id: `u${i}`,
        email,
        groups: s.mapping.groups,
        ...(auth ? { authenticationId: auth } : {}),
      };
      if (s.mapping.firstname) m.firstname = s.mapping.firstname;
      actual.mappings.push(m);
    }
    const d = s.desired;
    if (!d) return;
    const external = d.identity === "external";
    users.push(
      aUser({
        id: `u${i}`,
        email: d.emailChange ? `v${i}@${s.domain}` : email,
        state: d.state as "present" | "absent",
        identity: external ? "external" : "builtin",
        ...(external ? { authenticationId: `sub-u${i}` } : {}),
        ...(d.displayName ? { displayName: d.displayName } : {}),
        ...(d.firstname ? { firstname: d.firstname } : {}),
        ...(d.groups ? { groups: d.groups } : {}),
        source: { file: "users.yaml", line: i + 2 },
      }),
    );
  });
  return {
    desired: { users, groups: [aDesiredGroup({ id: "g3", parents: ["g1"] })], files: ["users.yaml"] },
    actual,
  };
}

const policyArb: fc.Arbitrary<Policy> = fc
  .record({
    mode: fc.constantFrom<Policy["mode"]>("incremental", "full"),
    membership: fc.constantFrom<Policy["membership"]>("exact", "additive"),
    deletions: fc.constantFrom<Policy["deletions"]>("none", "revoke", "remove"),
    unlinkedCredentials: fc.constantFrom<Policy["unlinkedCredentials"]>("ignore", "delete"),
    maxDeletes: fc.oneof<fc.Arbitrary<Policy["maxDeletes"]>[]>(
      fc.record({ count: fc.nat(4) }),
      fc.record({ percent: fc.nat(100) }),
    ),
    scope: fc.constantFrom<Policy["scope"]>(
      {},
      { emailDomains: ["a.com"] },
      { idPatterns: ["u1*", "u3"] },
      { groups: ["g1"] },
    ),
    protect: fc.constantFrom<string[]>([], ["u2"], ["*@b.com"]),
    prune: fc.boolean(),
  })
  .map(({ prune, ...p }) =>
    aPolicy({
      ...(p as Partial<Policy>),
      groups: { create: true, update: true, prune, createReferenced: false },
    }),
  );

const worldArb = fc.array(slot, { minLength: 0, maxLength: 10 }).map(world);
const profileArb = fc.constantFrom<ApiProfile>("v1", "legacy");

const DELETES = new Set(["deleteCredentials", "deleteMapping"]);
const planned = (p: Plan) => p.steps.filter((s) => s.status === "planned");

/** Deleted users and logins: each deleteMapping, plus credential deletions not followed by one. */
function deletedUsers(p: Plan): number {
  const steps = planned(p);
  const followed = new Set(steps.filter((s) => s.kind === "deleteMapping").flatMap((s) => s.dependsOn));
  return steps.filter(
    (s) => s.kind === "deleteMapping" || (s.kind === "deleteCredentials" && !followed.has(s.id)),
  ).length;
}

describe("planner properties", () => {
  test("a state planned against itself gives an empty plan", () => {
    fc.assert(
      fc.property(worldArb, policyArb, profileArb, ({ desired }, policy, profile) => {
        const users = desired.users
          .filter((u) => u.state === "present")
          .map((u) => ({
            ...u,
            ...(profile === "legacy" && u.groups ? { groups: u.groups.slice(0, 1) } : {}),
          }));
        const actual: ActualState = {
          idpUsers: users
            .filter((u) => u.identity === "builtin")
            .map((u) =>
              anIdpUser({
                email: u.email,
                displayName: u.displayName ?? "x",
                authenticationId: `auth-${u.id}`,
              }),
            ),
          mappings: users.map((u) => ({
            id: u.id,
            authenticationId: u.identity === "builtin" ? `auth-${u.id}` : (u.authenticationId ?? ""),
            groups: u.groups ?? ["g1"],
            ...(profile === "v1"
              ? { email: u.email, ...(u.firstname ? { firstname: u.firstname } : {}) }
              : {}),
          })),
          groups: [
            aGroup({ id: "g1" }),
            aGroup({ id: "g2" }),
            aGroup({ id: "g3", parents: profile === "v1" ? ["g1"] : [] }),
          ],
        };
        const groups = [aDesiredGroup({ id: "g1" }), aDesiredGroup({ id: "g2" }), ...desired.groups];
        const p = plan({ desired: { ...desired, users, groups }, actual, policy, profile });
        expect(p.steps).toEqual([]);
      }),
      RUNS,
    );
  });

  test("no step touches a protected or out-of-scope object", () => {
    const policy = (p: Policy): Policy => ({
      ...p,
      scope: { emailDomains: ["a.com"] },
      protect: ["u1*"],
      allowDeletes: 100,
    });
    fc.assert(
      fc.property(worldArb, policyArb, profileArb, ({ desired, actual }, base, profile) => {
        const p = plan({ desired, actual, policy: policy(base), profile });
        const inA = (e: string | undefined) => e !== undefined && e.toLowerCase().endsWith("@a.com");
        const idpByEmail = new Map(actual.idpUsers.map((u) => [`idp:${u.email.toLowerCase()}`, u]));
        const idpByAuth = new Map(actual.idpUsers.map((u) => [u.authenticationId, u]));
        const mappings = new Map(actual.mappings.map((m) => [`mapping:${m.id}`, m]));
        const names = (m: Mapping) => [
          m.id,
          m.email,
          m.authenticationId ? idpByAuth.get(m.authenticationId)?.email : undefined,
        ];
        for (const s of p.steps) {
          expect(/^u1/i.test(s.target)).toBe(false);
          for (const key of s.touches) {
            const m = mappings.get(key);
            if (m) {
              expect(names(m).some(inA), `${s.id} touches out-of-scope ${key}`).toBe(true);
              expect(
                names(m).some((n) => n !== undefined && /^u1/i.test(n)),
                `${s.id} touches protected ${key}`,
              ).toBe(false);
            }
            const u = idpByEmail.get(key);
            if (u) {
              const holders = actual.mappings.filter((x) => x.authenticationId === u.authenticationId);
              expect(
                inA(u.email) || holders.some((x) => names(x).some(inA)),
                `${s.id} touches out-of-scope ${key}`,
              ).toBe(true);
              expect(/^u1/i.test(u.email)).toBe(false);
            }
          }
        }
      }),
      RUNS,
    );
  });

  test("in incremental mode no step deletes a user that is not marked absent", () => {
    fc.assert(
      fc.property(worldArb, policyArb, profileArb, ({ desired, actual }, base, profile) => {
        const p = plan({ desired, actual, policy: { ...base, mode: "incremental" }, profile });
        const absentIds = new Set(desired.users.filter((u) => u.state === "absent").map((u) => u.id));
        const absentEmails = new Set(
          desired.users.filter((u) => u.state === "absent").map((u) => u.email.toLowerCase()),
        );
        const byEmail = new Map(actual.idpUsers.map((u) => [u.email.toLowerCase(), u]));
        for (const s of p.steps) {
          if (s.kind === "deleteMapping") expect(absentIds.has(s.target)).toBe(true);
          if (s.kind === "deleteCredentials") {
            const auth = byEmail.get(s.target)?.authenticationId;
            const mappedToAbsent = actual.mappings.some(
              (m) => m.authenticationId === auth && absentIds.has(m.id),
            );
            const emailChange = s.dependsOn.some((d) => d.startsWith("updateMapping:"));
            expect(absentEmails.has(s.target) || mappedToAbsent || emailChange, s.id).toBe(true);
          }
        }
      }),
      RUNS,
    );
  });

  test("planned user deletions never exceed maxDeletes without an allowance", () => {
    fc.assert(
      fc.property(worldArb, policyArb, profileArb, ({ desired, actual }, base, profile) => {
        const { allowDeletes: _none, ...policy } = base;
        const p = plan({ desired, actual, policy, profile });
        const limit =
          "count" in policy.maxDeletes
            ? policy.maxDeletes.count
            : policy.maxDeletes.percent <= 0
              ? 0
              : Math.max(1, Math.floor((policy.maxDeletes.percent / 100) * p.deleteGuard.managedUsers));
        expect(p.deleteGuard.limit).toBe(limit);
        expect(deletedUsers(p)).toBeLessThanOrEqual(limit);
        if (p.deleteGuard.wanted > limit)
          expect(
            planned(p).filter(
              (s) => DELETES.has(s.kind) && s.dependsOn.length === 0 && !s.reason.startsWith("email of"),
            ),
          ).toEqual([]);
      }),
      RUNS,
    );
  });

  test("the plan is the same for shuffled inputs", () => {
    const shuffle = <T>(xs: T[], keys: number[]): T[] =>
      xs
        .map((x, i) => [keys[i % keys.length] ?? 0, i, x] as const)
        .sort((a, b) => a[0] - b[0] || b[1] - a[1])
        .map(([, , x]) => x);
    fc.assert(
      fc.property(
        worldArb,
        policyArb,
        profileArb,
        fc.array(fc.nat(1000), { minLength: 1, maxLength: 20 }),
        ({ desired, actual }, policy, profile, keys) => {
          const one = serializePlan(plan({ desired, actual, policy, profile }));
          const other = plan({
            desired: {
              ...desired,
              users: shuffle(desired.users, keys),
              groups: shuffle(desired.groups, keys),
            },
            actual: {
              ...actual,
              idpUsers: shuffle(actual.idpUsers, keys),
              mappings: shuffle(actual.mappings, keys),
              groups: shuffle(actual.groups, keys),
            },
            policy,
            profile,
          });
          expect(serializePlan(other)).toBe(one);
        },
      ),
      RUNS,
    );
  });
});
