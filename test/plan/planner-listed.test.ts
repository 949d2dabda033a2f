/**
 * Which actual mappings the file names: the planner marks them while it plans the rows (no Map of
 * the desired users by id, issue 33). A listing never holds one id twice, but the planner is given
 * whatever it is given: every mapping with a named id counts as named, as before.
 */
import { describe, expect, test } from "vitest";
import { aMapping, anIdpUser, aSyncedUser, aUser, planOf, stepIds } from "./builders.js";

describe("mappings named by the file", () => {
  const jane = aSyncedUser("jane@example.com");
  const twin = aMapping({ id: "jane", authenticationId: "auth-other", email: "jane@example.com" });
  const bob = aMapping({ id: "bob", authenticationId: "auth-bob", email: "bob@example.com" });
  const bobIdp = anIdpUser({ email: "bob@example.com", authenticationId: "auth-bob" });

  test("two mappings with one named id: neither is deleted as unlisted in full mode", () => {
    for (const mappings of [
      [twin, jane.mapping, bob],
      [jane.mapping, twin, bob],
    ]) {
      const p = planOf({
        users: [jane.user],
        actual: { idpUsers: [jane.idp, bobIdp], mappings },
        policy: { mode: "full", deletions: "remove", maxDeletes: { count: 10 } },
      });
      expect(stepIds(p).filter((id) => id.includes("jane"))).toEqual(
        stepIds(p).filter((id) => id.includes("jane") && !id.startsWith("delete")),
      );
      expect(stepIds(p)).toContain("deleteMapping:bob");
    }
  });

  test("an absent row names its mapping too: incremental mode does not count it as kept by the mode", () => {
    const p = planOf({
      users: [aUser({ email: "bob@example.com", id: "bob", state: "absent" })],
      actual: { idpUsers: [jane.idp, bobIdp], mappings: [jane.mapping, bob] },
      policy: { deletions: "none" },
    });
    expect(p.keptByMode).toBeUndefined();
    const q = planOf({
      users: [aUser({ email: "bob@example.com", id: "bob", state: "absent" })],
      actual: { idpUsers: [jane.idp, bobIdp], mappings: [jane.mapping, bob] },
    });
    expect(q.keptByMode).toBe(1);
  });
});
