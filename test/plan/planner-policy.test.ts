/** Policies: protect, scope, unlinked credentials, maxDeletes, passwords, estimate, fingerprints. */
import { describe, expect, test } from "vitest";
import { ABSENT, hash, plan } from "../../src/plan/index.js";
import type { ActualState } from "../../src/service/types.js";
import {
  aDesiredState,
  aMapping,
  aPolicy,
  aUser,
  anActualState,
  anIdpUser,
  step,
  stepIds,
  planOf,
} from "./builders.js";

/** n mapped built-in users u0..u(n-1) at example.com. */
function population(n: number): Pick<ActualState, "idpUsers" | "mappings"> {
  const idpUsers = Array.from({ length: n }, (_, i) => anIdpUser({ email: `u${i}@example.com` }));
  return {
    idpUsers,
    mappings: idpUsers.map((u, i) => aMapping({ id: `u${i}`, authenticationId: u.authenticationId })),
  };
}

describe("protect", () => {
  test("admin, system accounts and the caller are never changed or deleted", () => {
    const actual = {
      ...population(0),
      callerId: "me",
      mappings: ["admin", "system-bot", "me", "x.system"].map((id) => aMapping({ id })),
    };
    const p = planOf({ actual, policy: { mode: "full", deletions: "remove", maxDeletes: { count: 100 } } });
    expect(stepIds(p)).toEqual([]);
    expect(p.notices.map((n) => `${n.kind} ${n.target}`)).toEqual([
      "protected mapping:admin",
      "protected mapping:me",
      "protected mapping:system-bot",
      "protected mapping:x.system",
    ]);
  });
  test("policy.protect globs match emails case-insensitively, for updates as well", () => {
    const p = planOf({
      users: [aUser({ email: "Boss@Corp.com", id: "boss", displayName: "The Boss" })],
      actual: { idpUsers: [anIdpUser({ email: "boss@corp.com" })] },
      policy: { protect: ["*@CORP.com"] },
    });
    expect(stepIds(p)).toEqual([]);
    expect(p.notices).toEqual([
      {
        kind: "protected",
        target: "mapping:boss",
        message: "protected by policy; not planned: updateCredentials, createMapping",
      },
    ]);
  });
});

describe("scope", () => {
  const actual = {
    idpUsers: [anIdpUser({ email: "a@in.com" }), anIdpUser({ email: "b@out.com" })],
    mappings: [
      aMapping({ id: "a", authenticationId: "auth-a@in.com" }),
      aMapping({ id: "b", authenticationId: "auth-b@out.com" }),
    ],
  };
  test("emailDomains: out-of-scope users are unmanaged and never deleted", () => {
    const p = planOf({
      actual,
      policy: { mode: "full", scope: { emailDomains: ["in.com"] }, maxDeletes: { count: 5 } },
    });
    expect(stepIds(p)).toEqual(["deleteCredentials:a@in.com"]);
    expect(p.notices).toEqual([
      { kind: "unmanaged", target: "mapping:b", message: "outside policy.scope; left alone" },
    ]);
    expect(p.deleteGuard.managedUsers).toBe(1);
  });
  test("a row that would change an out-of-scope user is refused", () => {
    const p = planOf({
      users: [aUser({ email: "b@out.com", id: "b", groups: ["x"] })],
      actual,
      policy: { scope: { emailDomains: ["in.com"] } },
    });
    expect(stepIds(p)).toEqual([]);
    expect(p.notices.map((n) => `${n.kind} ${n.target}`)).toEqual(["refused mapping:b"]);
  });
  test("idPatterns and groups", () => {
    const groups = {
      ...actual,
      mappings: [aMapping({ id: "a", groups: ["staff"] }), aMapping({ id: "svc-1" }), aMapping({ id: "c" })],
    };
    const p = planOf({
      actual: groups,
      policy: {
        mode: "full",
        deletions: "remove",
        scope: { idPatterns: ["svc-*"], groups: ["staff"] },
        maxDeletes: { count: 5 },
      },
    });
    expect(stepIds(p)).toEqual(["deleteMapping:a", "deleteMapping:svc-1"]);
  });
});

describe("unlinked credentials", () => {
  const actual = { idpUsers: [anIdpUser({ email: "lost@example.com" })] };
  test("ignore: an `unlinked` notice", () => {
    const p = planOf({ actual, policy: { mode: "full" } });
    expect(stepIds(p)).toEqual([]);
    expect(p.notices.map((n) => n.kind)).toEqual(["unlinked"]);
  });
  test("delete in full mode: deleteCredentials, counted as a user deletion", () => {
    const p = planOf({
      actual,
      policy: { mode: "full", unlinkedCredentials: "delete", maxDeletes: { count: 1 } },
    });
    expect(stepIds(p)).toEqual(["deleteCredentials:lost@example.com"]);
    expect(p.deleteGuard).toEqual({ limit: 1, wanted: 1, managedUsers: 1 });
  });
  test("delete in incremental mode: still only a notice", () => {
    const p = planOf({ actual, policy: { unlinkedCredentials: "delete" } });
    expect(stepIds(p)).toEqual([]);
  });
});

describe("maxDeletes", () => {
  const newcomer = aUser({ email: "new@example.com", id: "new" });
  const full = { mode: "full", deletions: "remove" } as const;
  test("over the count: every deletion held back, creates still planned", () => {
    const p = planOf({
      users: [newcomer],
      actual: population(3),
      policy: { ...full, maxDeletes: { count: 2 } },
    });
    expect(p.steps.filter((s) => s.status === "planned").map((s) => s.id)).toEqual([
      "createCredentials:new@example.com",
      "createMapping:new",
    ]);
    expect(p.steps.filter((s) => s.status === "heldBack")).toHaveLength(6);
    expect(p.counts).toEqual({ create: 2, update: 0, delete: 0, heldBack: 6 });
    expect(p.deleteGuard).toEqual({ limit: 2, wanted: 3, managedUsers: 3 });
    expect(p.estimate.requests).toBe(2);
  });
  test("percentage of managed users, rounded down", () => {
    const p = planOf({
      users: population(20)
        .mappings.slice(1)
        .map((m) => aUser({ email: `${m.id}@example.com`, id: m.id })),
      actual: population(20),
      policy: { ...full, maxDeletes: { percent: 5 } },
    });
    expect(p.deleteGuard).toEqual({ limit: 1, wanted: 1, managedUsers: 20 });
    expect(p.counts.heldBack).toBe(0);
  });
  test("a percentage never rounds below 1: the default 10% lets one deletion through in a small organization", () => {
    const p = planOf({
      users: population(5)
        .mappings.slice(1)
        .map((m) => aUser({ email: `${m.id}@example.com`, id: m.id })),
      actual: population(5),
      policy: full,
    });
    expect(p.deleteGuard).toEqual({ limit: 1, wanted: 1, managedUsers: 5 });
    expect(p.counts.heldBack).toBe(0);
  });
  test('"0%" allows no deletion at all', () => {
    const p = planOf({ actual: population(5), policy: { ...full, maxDeletes: { percent: 0 } } });
    expect(p.deleteGuard.limit).toBe(0);
    expect(p.counts.delete).toBe(0);
  });
  test("allowDeletes replaces the limit for the run", () => {
    const p = planOf({
      actual: population(3),
      policy: { ...full, maxDeletes: { count: 0 }, allowDeletes: 3 },
    });
    expect(p.counts).toEqual({ create: 0, update: 0, delete: 6, heldBack: 0 });
  });
});

describe("passwords never enter the plan", () => {
  test("column policy: a row's password shows as its source only", () => {
    const p = planOf({
      users: [aUser({ email: "a@x.com", password: "Hunter2-secret" }), aUser({ email: "b@x.com" })],
      policy: { passwords: "column" },
    });
    expect(step(p, "createCredentials:a@x.com")).toMatchObject({ after: { password: "column" } });
    expect(step(p, "createCredentials:b@x.com")).toMatchObject({ after: { password: "none" } });
    expect(JSON.stringify(p)).not.toContain("Hunter2");
  });
  test("the input fingerprint changes when a password appears, not with its value", () => {
    const fp = (password?: string) =>
      planOf({
        users: [
          aUser({
            email: "a@x.com",
            id: "a",
            source: { file: "f", line: 1 },
            ...(password ? { password } : {}),
          }),
        ],
      }).inputFingerprint;
    expect(fp("one")).toBe(fp("two"));
    expect(fp("one")).not.toBe(fp());
  });
  test("the input fingerprint follows every field, not the order of the users or their lines", () => {
    const users = [
      aUser({ email: "a@x.com", id: "a", groups: ["g1", "g2"], source: { file: "f", line: 1 } }),
      aUser({ email: "b@x.com", id: "b", displayName: "B", source: { file: "f", line: 2 } }),
    ];
    const fp = (list: typeof users) => planOf({ users: list }).inputFingerprint;
    const base = fp(users);
    expect(fp([...users].reverse())).toBe(base);
    expect(fp(users.map((u) => ({ ...u, source: { file: "other", line: 99 } })))).toBe(base);
    expect(fp([users[0]!, { ...users[1]!, displayName: "Bee" }])).not.toBe(base);
    expect(fp([{ ...users[0]!, groups: ["g1"] }, users[1]!])).not.toBe(base);
    // Values that would run together when concatenated still differ.
    expect(fp([{ ...users[0]!, groups: ["g1g2"] }, users[1]!])).not.toBe(base);
    expect(fp([users[0]!])).not.toBe(base);
  });
  test("display name of new credentials: given, else names, else the email's local part", () => {
    const p = planOf({
      users: [
        aUser({ email: "a.b@x.com", id: "ab" }),
        aUser({ email: "c@x.com", firstname: "Cee", lastname: "Dee" }),
      ],
    });
    expect(step(p, "createCredentials:a.b@x.com")).toMatchObject({ after: { displayName: "a.b" } });
    expect(step(p, "createCredentials:c@x.com")).toMatchObject({ after: { displayName: "Cee Dee" } });
  });
});

test("objects: the fingerprint of every touched object, `absent` for missing ones", () => {
  const idp = anIdpUser({ email: "a@x.com", displayName: "old" });
  const p = planOf({
    users: [aUser({ email: "a@x.com", id: "a", displayName: "new" })],
    actual: { idpUsers: [idp] },
  });
  expect(Object.keys(p.objects)).toEqual(["idp:a@x.com", "mapping:a"]);
  expect(p.objects["mapping:a"]).toBe(ABSENT);
  expect(p.objects["idp:a@x.com"]).toBe(
    hash({ email: "a@x.com", displayName: "old", authenticationId: idp.authenticationId }),
  );
  expect(step(p, "createMapping:a").touches).toEqual(["mapping:a", "idp:a@x.com"]);
});

test("estimate: one request per planned step at min(rps, concurrency / 100 ms)", () => {
  const users = Array.from({ length: 10 }, (_, i) => aUser({ email: `n${i}@x.com` }));
  const desired = aDesiredState(users);
  const args = { desired, actual: anActualState(), policy: aPolicy(), profile: "v1" as const };
  expect(plan({ ...args, limits: { concurrency: 4, requestsPerSecond: 100 } }).estimate).toEqual({
    requests: 20,
    seconds: 0.5,
  });
  expect(plan({ ...args, limits: { concurrency: 50, requestsPerSecond: 8 } }).estimate).toEqual({
    requests: 20,
    seconds: 2.5,
  });
});

test("credentials whose email only an external row names are still reported as unlinked", () => {
  const p = planOf({
    users: [aUser({ email: "ext@example.com", id: "ext", identity: "external", authenticationId: "sub-1" })],
    actual: { idpUsers: [anIdpUser({ email: "ext@example.com" })] },
  });
  expect(stepIds(p)).toEqual(["createMapping:ext"]);
  expect(p.notices.map((n) => `${n.kind} ${n.target}`)).toEqual(["unlinked idp:ext@example.com"]);
});
