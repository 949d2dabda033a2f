/** The listing keeps what the planner needs, once (issue 33): equal values, shared group lists. */
import { describe, expect, test } from "vitest";
import { compactMappings } from "../../src/service/actual.js";
import type { IdpUser, Mapping } from "../../src/service/types.js";

describe("compactMappings", () => {
  const idp: IdpUser[] = [{ email: "jane@example.com", displayName: "Jane", authenticationId: "auth-jane" }];
  const listed = (): Mapping[] => [
    { id: "jane", authenticationId: "auth-jane", email: "jane@example.com", groups: ["a", "b"] },
    { id: "bob", authenticationId: "auth-gone", email: "bob@example.com", groups: ["a", "b"] },
    { id: "ext", groups: [] },
    { id: "eve", authenticationId: "auth-jane", email: "Eve@example.com", groups: ["c"] },
  ];

  test("every value stays as listed", () => {
    expect(compactMappings(listed(), idp)).toStrictEqual(listed());
    expect(compactMappings(listed(), undefined)).toStrictEqual(listed());
  });

  test("mappings in the same groups share one frozen list", () => {
    const [jane, bob, , eve] = compactMappings(listed(), idp);
    expect(jane!.groups).toBe(bob!.groups);
    expect(Object.isFrozen(jane!.groups)).toBe(true);
    expect(eve!.groups).toEqual(["c"]);
  });
});
