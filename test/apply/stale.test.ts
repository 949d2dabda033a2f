import { describe, expect, it } from "vitest";
import { checkPlanOrganization, findStaleSteps } from "../../src/apply/index.js";
import { ConfigError } from "../../src/errors.js";
import { ABSENT, fingerprintMapping, groupKey, idpKey, mappingKey } from "../../src/plan/fingerprint.js";
import type { Step } from "../../src/plan/types.js";
import type { ActualState } from "../../src/service/types.js";
import { aGroup, aMapping, anIdpUser, aUser, planOf, stepIds } from "../plan/builders.js";
import { aPlan } from "./builders.js";

const base = { dependsOn: [] as string[], reason: "t", status: "planned" as const };
const jane = { id: "jane", authenticationId: "a1", groups: ["sales"] };

describe("findStaleSteps", () => {
  const steps: Step[] = [
    {
      ...base,
      id: "updateMapping:jane",
      kind: "updateMapping",
      target: "jane",
      touches: [mappingKey("jane")],
      before: jane,
      after: { ...jane, groups: [] },
    },
    {
      ...base,
      id: "createCredentials:new@x.com",
      kind: "createCredentials",
      target: "new@x.com",
      touches: [idpKey("new@x.com")],
      after: { email: "new@x.com", displayName: "n", password: "none" },
    },
    {
      ...base,
      id: "createGroup:g",
      kind: "createGroup",
      target: "g",
      touches: [groupKey("g"), "group:unrecorded"],
      after: { id: "g", parents: [] },
    },
  ];
  const plan = aPlan(steps, {
    objects: {
      [mappingKey("jane")]: fingerprintMapping(jane),
      [idpKey("new@x.com")]: ABSENT,
      [groupKey("g")]: ABSENT,
    },
  });

  it("finds nothing stale when the objects did not change (except keys the plan never recorded)", () => {
    const actual: ActualState = { idpUsers: [], mappings: [{ ...jane, groups: ["sales"] }], groups: [] };
    expect([...findStaleSteps(plan, actual)]).toEqual(["createGroup:g"]);
  });

  it("marks the steps whose objects changed or appeared", () => {
    const actual: ActualState = {
      idpUsers: [{ email: "NEW@x.com", displayName: "someone", authenticationId: "z" }],
      mappings: [{ ...jane, groups: ["other"] }],
      groups: [],
    };
    expect([...findStaleSteps(plan, actual)].sort()).toEqual([
      "createCredentials:new@x.com",
      "createGroup:g",
      "updateMapping:jane",
    ]);
  });
});

describe("findStaleSteps on real plans: what changed beside the touched objects", () => {
  const bobIdp = anIdpUser({ email: "bob@x.com", authenticationId: "auth-b" });
  const bob = aMapping({ id: "bob", authenticationId: "auth-b", email: "bob@x.com", groups: ["managed"] });
  const groups = [aGroup({ id: "managed" }), aGroup({ id: "other" })];
  const stale = (p: ReturnType<typeof planOf>, actual: Partial<ActualState>) =>
    [...findStaleSteps(p, { idpUsers: [], mappings: [], groups, ...actual })].sort();

  it("a user moved out of scope after the plan: its credentials deletion is stale too", () => {
    const p = planOf({
      actual: { idpUsers: [bobIdp], mappings: [bob], groups },
      policy: { mode: "full", deletions: "remove", scope: { groups: ["managed"] }, allowDeletes: 5 },
    });
    expect(stepIds(p)).toEqual(["deleteCredentials:bob@x.com", "deleteMapping:bob"]);
    expect(stale(p, { idpUsers: [bobIdp], mappings: [bob] })).toEqual([]);
    expect(stale(p, { idpUsers: [bobIdp], mappings: [{ ...bob, groups: ["other"] }] })).toEqual([
      "deleteCredentials:bob@x.com",
      "deleteMapping:bob",
    ]);
  });

  it("a user renamed after the plan (same credentials, new id): the credentials deletion is stale", () => {
    const p = planOf({
      actual: { idpUsers: [bobIdp], mappings: [bob], groups },
      policy: { mode: "full", deletions: "revoke", allowDeletes: 5 },
    });
    // Revoke means no access: bob's groups go with his login.
    expect(stepIds(p)).toEqual(["updateMapping:bob", "deleteCredentials:bob@x.com"]);
    const robert = { ...bob, id: "robert" };
    expect(stale(p, { idpUsers: [bobIdp], mappings: [robert] }).sort()).toEqual([
      "deleteCredentials:bob@x.com",
      "updateMapping:bob",
    ]);
  });

  it("unlinked credentials that a new mapping now uses are not deleted", () => {
    const p = planOf({
      actual: { idpUsers: [bobIdp], groups },
      policy: { mode: "full", unlinkedCredentials: "delete", allowDeletes: 5 },
    });
    expect(stepIds(p)).toEqual(["deleteCredentials:bob@x.com"]);
    expect(stale(p, { idpUsers: [bobIdp] })).toEqual([]);
    expect(stale(p, { idpUsers: [bobIdp], mappings: [bob] })).toEqual(["deleteCredentials:bob@x.com"]);
  });

  it("a mapping create whose credentials another mapping took meanwhile is stale (never two on one)", () => {
    const jane = anIdpUser({ email: "jane@x.com", authenticationId: "a1" });
    const p = planOf({
      users: [aUser({ email: "jane@x.com", id: "jane" })],
      actual: { idpUsers: [jane], groups },
    });
    expect(stepIds(p)).toEqual(["createMapping:jane"]);
    expect(stale(p, { idpUsers: [jane] })).toEqual([]);
    const other = aMapping({ id: "j.doe", authenticationId: "a1" });
    expect(stale(p, { idpUsers: [jane], mappings: [other] })).toEqual(["createMapping:jane"]);
  });
});

describe("checkPlanOrganization: a saved plan belongs to its organization", () => {
  const acme = { id: "acme", url: "https://acme.example.com" };
  const check = (made: { id?: string; url: string } | undefined, here: { id?: string; url: string }) => () =>
    checkPlanOrganization({
      plan: { ...aPlan([]), ...(made !== undefined ? { organization: made } : {}) },
      here,
      file: "plan.json",
    });

  it("the same id at the same URL passes", () => {
    expect(check(acme, { ...acme })).not.toThrow();
    expect(check({ url: "embedded" }, { url: "embedded" })).not.toThrow();
  });

  it.each([
    { name: "another id", here: { id: "globex", url: acme.url } },
    {
      name: "the same id at another URL (staging and production)",
      here: { id: "acme", url: "https://staging.example.com" },
    },
    { name: "an organization whose id the service does not tell", here: { url: acme.url } },
  ])("$name: refused (exit 4), both named", ({ here }) => {
    expect(check(acme, here)).toThrow(ConfigError);
    expect(check(acme, here)).toThrow(
      /was made for organization acme at https:\/\/acme\.example\.com, but this run is pointed at .*nothing was sent/,
    );
  });

  it("a plan that records no organization is refused", () => {
    expect(check(undefined, acme)).toThrow(/does not say which organization it was made for/);
  });
});
