/** DESIGN section 5, one named case each: the exact steps the planner makes. */
import { describe, expect, test } from "vitest";
import { plan } from "../../src/plan/index.js";
import type { UpdateMappingStep } from "../../src/plan/types.js";
import {
  aDesiredState,
  aMapping,
  aPolicy,
  aSyncedUser,
  aUser,
  anActualState,
  anIdpUser,
  step,
  stepIds,
  planOf,
} from "./builders.js";

const jane = { email: "jane@example.com", id: "jane", displayName: "Jane Doe" };
const janeIdp = anIdpUser({
  email: "jane@example.com",
  displayName: "Jane Doe",
  authenticationId: "auth-jane",
});

describe("matching cases", () => {
  test("new built-in user: createCredentials, then createMapping with the returned authenticationId", () => {
    const p = planOf({ users: [aUser({ ...jane, groups: [] })] });
    expect(stepIds(p)).toEqual(["createCredentials:jane@example.com", "createMapping:jane"]);
    expect(step(p, "createCredentials:jane@example.com")).toMatchObject({
      after: { email: "jane@example.com", displayName: "Jane Doe", password: "generate" },
      dependsOn: [],
    });
    expect(step(p, "createMapping:jane")).toMatchObject({
      dependsOn: ["createCredentials:jane@example.com"],
      after: {
        id: "jane",
        authenticationId: { fromStep: "createCredentials:jane@example.com" },
        email: "jane@example.com",
        groups: [],
      },
    });
  });

  test("IdP user without mapping: createMapping with the IdP user's authenticationId", () => {
    const p = planOf({ users: [aUser(jane)], actual: { idpUsers: [janeIdp] } });
    expect(stepIds(p)).toEqual(["createMapping:jane"]);
    expect(step(p, "createMapping:jane")).toMatchObject({
      dependsOn: [],
      after: { authenticationId: "auth-jane" },
    });
  });

  test("mapping without credentials: createCredentials + updateMapping pointing at them", () => {
    const p = planOf({
      users: [aUser(jane)],
      actual: { mappings: [aMapping({ id: "jane", authenticationId: "gone", email: "jane@example.com" })] },
    });
    expect(stepIds(p)).toEqual(["createCredentials:jane@example.com", "updateMapping:jane"]);
    expect(step(p, "updateMapping:jane")).toMatchObject({
      dependsOn: ["createCredentials:jane@example.com"],
      before: { authenticationId: "gone" },
      after: {
        id: "jane",
        email: "jane@example.com",
        groups: [],
        authenticationId: { fromStep: "createCredentials:jane@example.com" },
      },
    });
  });

  test("mapping with the wrong authenticationId: updateMapping to the IdP user's", () => {
    const p = planOf({
      users: [aUser(jane)],
      actual: {
        idpUsers: [janeIdp],
        mappings: [aMapping({ id: "jane", authenticationId: "stale", email: "jane@example.com" })],
      },
    });
    expect(stepIds(p)).toEqual(["updateMapping:jane"]);
    expect(step(p, "updateMapping:jane")).toMatchObject({
      after: { authenticationId: "auth-jane" },
      reason: "authenticationId differs",
    });
  });

  describe("group drift", () => {
    const actual = {
      idpUsers: [janeIdp],
      mappings: [
        aMapping({
          id: "jane",
          authenticationId: "auth-jane",
          email: "jane@example.com",
          groups: ["a", "b"],
        }),
      ],
    };
    // One person alone: their own PUT is the cheapest form (people moved together: planner-bulk).
    test("exact: the mapping's groups become the listed ones", () => {
      const p = planOf({ users: [aUser({ ...jane, groups: ["b", "c"] })], actual });
      expect(stepIds(p)).toEqual(["updateMapping:jane"]);
      expect(step(p, "updateMapping:jane")).toMatchObject({
        before: { groups: ["a", "b"] },
        after: { groups: ["b", "c"] },
      });
    });
    test("additive: the listed groups are added, none removed", () => {
      const p = planOf({
        users: [aUser({ ...jane, groups: ["b", "c"] })],
        actual,
        policy: { membership: "additive" },
      });
      expect(step(p, "updateMapping:jane")).toMatchObject({ after: { groups: ["a", "b", "c"] } });
    });
    test("additive with nothing new: no step", () => {
      const p = planOf({
        users: [aUser({ ...jane, groups: ["a"] })],
        actual,
        policy: { membership: "additive" },
      });
      expect(stepIds(p)).toEqual([]);
    });
    test("groups field absent: the user keeps its groups", () => {
      expect(stepIds(planOf({ users: [aUser(jane)], actual }))).toEqual([]);
    });
    test("empty list: no groups", () => {
      const p = planOf({ users: [aUser({ ...jane, groups: [] })], actual });
      expect(step(p, "updateMapping:jane")).toMatchObject({ after: { groups: [] } });
    });
  });

  test("display-name drift: updateCredentials without any password", () => {
    const { user, idp, mapping } = aSyncedUser("jane@example.com");
    const p = planOf({
      users: [{ ...user, displayName: " Jane D. " }],
      actual: { idpUsers: [idp], mappings: [mapping] },
    });
    expect(stepIds(p)).toEqual(["updateCredentials:jane@example.com"]);
    const s = step(p, "updateCredentials:jane@example.com");
    expect(s).toMatchObject({
      before: { displayName: "jane" },
      after: { email: "jane@example.com", displayName: "Jane D." },
    });
    expect(JSON.stringify(s)).not.toContain("password");
  });

  test("firstname/lastname drift (v1): updateMapping with the whole mapping", () => {
    const { user, idp, mapping } = aSyncedUser("jane@example.com", { firstname: "Jane", groups: ["g"] });
    const p = planOf({
      users: [{ ...user, firstname: "Janet", lastname: "Doe" }],
      actual: { idpUsers: [idp], mappings: [mapping] },
    });
    expect(stepIds(p)).toEqual(["updateMapping:jane"]);
    expect(step(p, "updateMapping:jane")).toMatchObject({
      reason: "firstname, lastname differ",
      after: {
        id: "jane",
        authenticationId: idp.authenticationId,
        firstname: "Janet",
        lastname: "Doe",
        email: "jane@example.com",
        groups: ["g"],
      },
    });
  });

  test("firstname/lastname are ignored under legacy, and so is the mapping's email", () => {
    const { user, idp, mapping } = aSyncedUser("jane@example.com");
    const legacyMapping = { id: mapping.id, authenticationId: idp.authenticationId, groups: [] };
    const p = planOf({
      users: [{ ...user, firstname: "Janet" }],
      actual: { idpUsers: [idp], mappings: [legacyMapping] },
      profile: "legacy",
    });
    expect(stepIds(p)).toEqual([]);
  });

  test("emails match case-insensitively; the v1 mapping email attribute follows the file's case", () => {
    const { user, idp, mapping } = aSyncedUser("jane@example.com");
    const p = planOf({
      users: [{ ...user, email: "Jane@Example.com" }],
      actual: { idpUsers: [idp], mappings: [mapping] },
    });
    expect(stepIds(p)).toEqual(["updateMapping:jane"]);
    expect(step(p, "updateMapping:jane")).toMatchObject({
      reason: "email differs",
      after: { email: "Jane@Example.com" },
    });
  });

  describe("email change of a known id", () => {
    const old = anIdpUser({ email: "jane@old.com", authenticationId: "auth-old" });
    const mapping = aMapping({ id: "jane", authenticationId: "auth-old", email: "jane@old.com" });
    const oneDelete = { maxDeletes: { count: 1 } };
    test("new email without credentials: create them, re-point the mapping, then delete the old ones", () => {
      const p = planOf({
        users: [aUser(jane)],
        actual: { idpUsers: [old], mappings: [mapping] },
        policy: oneDelete,
      });
      expect(stepIds(p)).toEqual([
        "createCredentials:jane@example.com",
        "updateMapping:jane",
        "deleteCredentials:jane@old.com",
      ]);
      expect(step(p, "updateMapping:jane").dependsOn).toEqual(["createCredentials:jane@example.com"]);
      expect(step(p, "deleteCredentials:jane@old.com").dependsOn).toEqual(["updateMapping:jane"]);
      expect(step(p, "deleteCredentials:jane@old.com").status).toBe("planned");
      // Revoking the old login counts against maxDeletes.
      expect(p.deleteGuard.wanted).toBe(1);
    });
    test("an email change counts against maxDeletes: over the limit, the whole change is held back", () => {
      // A file with every email wrong (the wrong domain) must not move everyone's login away.
      const p = planOf({
        users: [aUser(jane)],
        actual: { idpUsers: [old], mappings: [mapping] },
        policy: { maxDeletes: { count: 0 } },
      });
      expect(p.deleteGuard).toMatchObject({ wanted: 1, limit: 0 });
      expect(p.steps.map((s) => [s.id, s.status])).toEqual([
        ["createCredentials:jane@example.com", "heldBack"],
        ["updateMapping:jane", "heldBack"],
        ["deleteCredentials:jane@old.com", "heldBack"],
      ]);
    });
    test("new email with credentials: re-point the mapping and delete the old ones", () => {
      const p = planOf({
        users: [aUser(jane)],
        actual: { idpUsers: [old, janeIdp], mappings: [mapping] },
        policy: oneDelete,
      });
      expect(stepIds(p)).toEqual(["updateMapping:jane", "deleteCredentials:jane@old.com"]);
      expect(step(p, "updateMapping:jane")).toMatchObject({
        after: { authenticationId: "auth-jane", email: "jane@example.com" },
      });
    });
    test("deletions none: the old credentials stay", () => {
      const p = planOf({
        users: [aUser(jane)],
        actual: { idpUsers: [old], mappings: [mapping] },
        policy: { deletions: "none", ...oneDelete },
      });
      expect(stepIds(p)).toEqual(["createCredentials:jane@example.com", "updateMapping:jane"]);
    });
  });

  test("external-IdP user: mapping only, never the IdP users", () => {
    const p = planOf({
      users: [aUser({ ...jane, identity: "external", authenticationId: "sub-123" })],
      actual: { idpUsers: [anIdpUser({ email: "jane@example.com", displayName: "other" })] },
    });
    expect(stepIds(p)).toEqual(["createMapping:jane"]);
    expect(step(p, "createMapping:jane")).toMatchObject({
      dependsOn: [],
      after: { authenticationId: "sub-123" },
    });
  });

  describe("users absent from the file", () => {
    const actual = {
      idpUsers: [janeIdp],
      mappings: [aMapping({ id: "jane", authenticationId: "auth-jane" })],
    };
    const many = { maxDeletes: { count: 10 } } as const;
    test("incremental: left alone", () => {
      expect(stepIds(planOf({ users: [], actual, policy: { ...many, deletions: "remove" } }))).toEqual([]);
    });
    test("full + revoke: credentials only", () => {
      expect(stepIds(planOf({ users: [], actual, policy: { ...many, mode: "full" } }))).toEqual([
        "deleteCredentials:jane@example.com",
      ]);
    });
    test("full + remove: credentials, then the mapping", () => {
      const p = planOf({ users: [], actual, policy: { ...many, mode: "full", deletions: "remove" } });
      expect(stepIds(p)).toEqual(["deleteCredentials:jane@example.com", "deleteMapping:jane"]);
      expect(step(p, "deleteMapping:jane").dependsOn).toEqual(["deleteCredentials:jane@example.com"]);
      expect(p.deleteGuard).toEqual({ limit: 10, wanted: 1, managedUsers: 1 });
    });
    test("full + none: nothing, a `kept` notice", () => {
      const p = planOf({ users: [], actual, policy: { ...many, mode: "full", deletions: "none" } });
      expect(stepIds(p)).toEqual([]);
      expect(p.notices).toEqual([expect.objectContaining({ kind: "kept", target: "mapping:jane" })]);
    });
  });

  describe("rows with state: absent", () => {
    const actual = {
      idpUsers: [janeIdp],
      mappings: [aMapping({ id: "jane", authenticationId: "auth-jane" })],
    };
    const policy = { maxDeletes: { count: 10 } } as const;
    test("revoke (incremental too): credentials only", () => {
      const p = planOf({ users: [aUser({ ...jane, state: "absent" })], actual, policy });
      expect(stepIds(p)).toEqual(["deleteCredentials:jane@example.com"]);
      expect(step(p, "deleteCredentials:jane@example.com").reason).toMatch(/marked absent at users.csv:\d+/);
    });
    test("remove: credentials and mapping", () => {
      const p = planOf({
        users: [aUser({ ...jane, state: "absent" })],
        actual,
        policy: { ...policy, deletions: "remove" },
      });
      expect(stepIds(p)).toEqual(["deleteCredentials:jane@example.com", "deleteMapping:jane"]);
    });
    test("unmapped credentials of an absent row are deleted", () => {
      const p = planOf({
        users: [aUser({ ...jane, state: "absent" })],
        actual: { idpUsers: [janeIdp] },
        policy,
      });
      expect(stepIds(p)).toEqual(["deleteCredentials:jane@example.com"]);
    });
    test("nothing to delete: no step", () => {
      expect(
        stepIds(
          planOf({
            users: [aUser({ ...jane, state: "absent" })],
            policy: { ...policy, deletions: "remove" },
          }),
        ),
      ).toEqual([]);
    });
  });

  describe("authenticationId conflicts", () => {
    test("IdP user already mapped to another id: conflict, never a second mapping", () => {
      const p = planOf({
        users: [aUser(jane)],
        actual: { idpUsers: [janeIdp], mappings: [aMapping({ id: "j.doe", authenticationId: "auth-jane" })] },
      });
      expect(stepIds(p)).toEqual([]);
      expect(p.notices).toEqual([
        expect.objectContaining({ kind: "conflict", target: "idp:jane@example.com" }),
      ]);
    });
    test("external user whose sub is mapped already: conflict", () => {
      const p = planOf({
        users: [aUser({ ...jane, identity: "external", authenticationId: "sub-1" })],
        actual: { mappings: [aMapping({ id: "other", authenticationId: "sub-1" })] },
      });
      expect(stepIds(p)).toEqual([]);
      expect(p.notices.map((n) => n.kind)).toEqual(["conflict"]);
    });
    test("two existing mappings with one authenticationId: a conflict notice", () => {
      const p = planOf({
        users: [],
        actual: {
          mappings: [
            aMapping({ id: "b", authenticationId: "x" }),
            aMapping({ id: "a", authenticationId: "x" }),
          ],
        },
      });
      expect(p.notices).toEqual([
        {
          kind: "conflict",
          target: "mapping:a",
          message: "mappings a, b share one authenticationId; only one of them can log in",
        },
      ]);
    });
  });

  test("IdP users sharing an authenticationId (the service never has them) count as linked, not deleted", () => {
    const a = anIdpUser({ email: "a@example.com", authenticationId: "x" });
    const b = anIdpUser({ email: "b@example.com", authenticationId: "x" });
    const p = planOf({
      users: [],
      actual: { idpUsers: [a, b], mappings: [aMapping({ id: "a", authenticationId: "x" })] },
      policy: { mode: "full", unlinkedCredentials: "delete", deletions: "revoke", allowDeletes: 10 },
    });
    // The mapping is unlisted (full mode): its credentials go, the other IdP user is left alone.
    expect(stepIds(p)).toEqual(["deleteCredentials:b@example.com"]);
    expect(p.notices.filter((n) => n.kind === "unlinked")).toEqual([]);
  });

  test("a user in sync gives an empty plan", () => {
    const { user, idp, mapping } = aSyncedUser("jane@example.com", {
      firstname: "Jane",
      lastname: "Doe",
      groups: ["g"],
    });
    const p = planOf({
      users: [user],
      actual: { idpUsers: [idp], mappings: [mapping], groups: [{ id: "g", parents: [] }] },
    });
    expect(stepIds(p)).toEqual([]);
    expect(p.counts).toEqual({ create: 0, update: 0, delete: 0, heldBack: 0 });
  });
});

describe("profile legacy", () => {
  const actual = {
    idpUsers: [janeIdp],
    mappings: [aMapping({ id: "jane", authenticationId: "auth-jane", groups: ["a"] })],
  };
  test("additive replaces the single group when the row names one", () => {
    const p = planOf({
      users: [aUser({ ...jane, groups: ["b"] })],
      actual,
      policy: { membership: "additive" },
      profile: "legacy",
    });
    expect(step(p, "updateMapping:jane")).toMatchObject({
      after: { id: "jane", authenticationId: "auth-jane", groups: ["b"] },
    });
    // Legacy mappings carry no firstname/lastname/email: the PUT body must not invent them.
    expect(Object.keys((step(p, "updateMapping:jane") as UpdateMappingStep).after)).toEqual([
      "id",
      "authenticationId",
      "groups",
    ]);
  });
});

test("planning does not change its inputs and is repeatable", () => {
  const users = [aUser({ ...jane, groups: ["b"] }), aUser({ email: "x@example.com", state: "absent" })];
  const actual = anActualState({
    idpUsers: [janeIdp, anIdpUser({ email: "x@example.com" })],
    mappings: [aMapping({ id: "jane", authenticationId: "auth-jane", groups: ["a"] })],
  });
  const before = structuredClone({ users, actual });
  const input = {
    desired: aDesiredState(users),
    actual,
    policy: aPolicy({ mode: "full" }),
    profile: "v1" as const,
  };
  const one = JSON.stringify(plan(input));
  expect({ users, actual }).toEqual(before);
  expect(JSON.stringify(plan(input))).toBe(one);
});
