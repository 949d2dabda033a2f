/** Adopting existing mappings (plan/adopt.ts, issue 38 point 6): the cases, each with its exact plan. */
import { describe, expect, test } from "vitest";
import { aGroup, aMapping, anIdpUser, aUser, planOf, step, stepIds } from "./builders.js";

const rae = { email: "rae@emea.contoso.com", displayName: "Rae Emea", groups: ["sales"] };
const raeIdp = anIdpUser({ email: rae.email, displayName: rae.displayName, authenticationId: "auth-rae" });
const groups = [aGroup({ id: "sales" })];

describe("adopting a mapping that exists under another id", () => {
  test("a built-in person whose credentials are mapped under another id: the mapping is kept and updated", () => {
    const p = planOf({
      // aUser without an id: the id is derived ("rae"), as a directory's rule or the email would.
      users: [aUser({ ...rae })],
      actual: {
        idpUsers: [raeIdp],
        mappings: [aMapping({ id: "rae.emea_contoso.com", authenticationId: "auth-rae", groups: [] })],
        groups,
      },
    });
    expect(stepIds(p)).toEqual(["updateMapping:rae.emea_contoso.com"]);
    expect(step(p, "updateMapping:rae.emea_contoso.com")).toMatchObject({
      after: { id: "rae.emea_contoso.com", authenticationId: "auth-rae", groups: ["sales"] },
    });
    expect(p.notices).toEqual([
      {
        kind: "adopted",
        target: "mapping:rae.emea_contoso.com",
        message:
          "rae@emea.contoso.com: its login is already mapped as 'rae.emea_contoso.com', so that mapping is kept under its id (usersync would have named it 'rae') and updated as the desired state says",
      },
    ]);
  });

  test("an external person found by authenticationId (a just-in-time mapping)", () => {
    const p = planOf({
      users: [aUser({ ...rae, identity: "external", authenticationId: "oid-rae" })],
      actual: {
        mappings: [
          aMapping({ id: "jit-7f3a", authenticationId: "oid-rae", email: rae.email, groups: ["sales"] }),
        ],
        groups,
      },
    });
    expect(p.notices.map((n) => [n.kind, n.target])).toEqual([["adopted", "mapping:jit-7f3a"]]);
    expect(stepIds(p).some((id) => id.startsWith("createMapping"))).toBe(false);
  });

  test("full mode: the adopted mapping is the person's, never deleted as unlisted", () => {
    const p = planOf({
      users: [aUser({ ...rae })],
      actual: {
        idpUsers: [raeIdp],
        mappings: [
          aMapping({ id: "old-rae", authenticationId: "auth-rae", email: rae.email, groups: ["sales"] }),
        ],
        groups,
      },
      policy: { mode: "full", deletions: "remove" },
    });
    expect(stepIds(p)).toEqual([]);
    expect(p.notices.map((n) => n.kind)).toEqual(["adopted"]);
  });

  test("a leaver (state absent) is revoked through the adopted mapping: nobody keeps a login by a renamed id", () => {
    const p = planOf({
      users: [aUser({ ...rae, state: "absent" })],
      actual: {
        idpUsers: [raeIdp],
        mappings: [
          aMapping({ id: "old-rae", authenticationId: "auth-rae", email: rae.email, groups: ["sales"] }),
        ],
        groups,
      },
    });
    // Revoke means no access: the login goes, and the groups with it; the mapping stays.
    expect(stepIds(p).sort()).toEqual(["deleteCredentials:rae@emea.contoso.com", "updateMapping:old-rae"]);
  });

  test("an id written in the file is never replaced: the existing mapping stays a conflict", () => {
    const p = planOf({
      users: [aUser({ ...rae, id: "rae" })],
      actual: {
        idpUsers: [raeIdp],
        mappings: [aMapping({ id: "old-rae", authenticationId: "auth-rae" })],
        groups,
      },
    });
    expect(stepIds(p)).toEqual([]);
    expect(p.notices.map((n) => n.kind)).toEqual(["conflict"]);
  });

  test("two mappings holding one login: a conflict, nothing adopted", () => {
    const p = planOf({
      users: [aUser({ ...rae })],
      actual: {
        idpUsers: [raeIdp],
        mappings: [
          aMapping({ id: "rae-1", authenticationId: "auth-rae" }),
          aMapping({ id: "rae-2", authenticationId: "auth-rae" }),
        ],
        groups,
      },
    });
    expect(p.notices.map((n) => n.kind)).not.toContain("adopted");
    expect(p.notices.map((n) => n.kind)).toContain("conflict");
    expect(stepIds(p).filter((id) => id.startsWith("createMapping"))).toEqual([]);
  });

  test("a mapping another row of the desired state names is not adopted by a second person", () => {
    const p = planOf({
      users: [aUser({ ...rae }), aUser({ email: "other@contoso.com", id: "old-rae" })],
      actual: {
        idpUsers: [raeIdp],
        mappings: [aMapping({ id: "old-rae", authenticationId: "auth-rae" })],
        groups,
      },
    });
    expect(p.notices.map((n) => n.kind)).not.toContain("adopted");
    expect(p.notices.map((n) => n.kind)).toContain("conflict");
  });

  test("a person whose derived id has a mapping already is planned as before", () => {
    const p = planOf({
      users: [aUser({ ...rae })],
      actual: {
        idpUsers: [raeIdp],
        mappings: [
          aMapping({ id: "rae", authenticationId: "auth-rae", email: rae.email, groups: ["sales"] }),
        ],
        groups,
      },
    });
    expect(p.notices).toEqual([]);
    expect(stepIds(p)).toEqual([]);
  });
});
