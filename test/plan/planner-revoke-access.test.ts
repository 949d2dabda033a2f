/**
 * `deletions: revoke` for leavers who sign in through the identity provider (plan/revoke-access.ts,
 * docs/configuration.md "What revoke does"): their access goes, their mapping stays.
 */
import { describe, expect, test } from "vitest";
import { MANAGED_TAG, managedFilterId, renderMaql } from "../../src/data-filters.js";
import type { ActualPermissions } from "../../src/permissions.js";
import { summarizePlan } from "../../src/plan/index.js";
import { summarizeDone } from "../../src/plan/summary.js";
import type { Policy } from "../../src/plan/policy.js";
import type { ActualState } from "../../src/service/types.js";
import {
  aDesiredGroup,
  aGroup,
  aMapping,
  anIdpUser,
  aSyncedUser,
  aUser,
  planOf,
  step,
  stepIds,
} from "./builders.js";

const jane = { id: "jane", email: "jane@example.com" };
/** An SSO person: a mapping whose login id is no built-in login. */
const sso = (groups: string[] = ["sales", "analysts"]) =>
  aMapping({ id: "jane", email: jane.email, authenticationId: "sub-jane", groups });
const groups = [aGroup({ id: "sales" }), aGroup({ id: "analysts" })];
const full: Partial<Policy> = { mode: "full", maxDeletes: { count: 10 } };
const oidc = (a: Partial<ActualState> = {}): Partial<ActualState> => ({ signIn: "oidc", groups, ...a });

const user = (id: string) => ({ type: "user" as const, id });
const perms = (more: Partial<ActualPermissions> = {}): ActualPermissions => ({
  workspaces: [{ id: "sales-emea" }, { id: "hr" }],
  assignments: [{ workspace: "sales-emea", assignee: user("jane"), permissions: ["VIEW"], hierarchy: [] }],
  organization: [],
  ...more,
});
/** A run that manages workspace permissions: someone in the file lists workspaces. */
const withPermissions = (p: Partial<Policy> = {}): Partial<Policy> => ({
  ...full,
  permissions: { workspaces: ["sales-*"], maxRemovals: { count: 10 }, allowOrganizationManage: false },
  ...p,
});
const teamWithWorkspaces = aDesiredGroup({ id: "sales", workspaces: [] });

describe("a leaver who signs in through the identity provider", () => {
  test("full mode: leaves every group, the mapping stays, one revoke in the summary and the guard", () => {
    const p = planOf({ actual: oidc({ mappings: [sso()] }), policy: full });
    expect(stepIds(p)).toEqual(["updateMapping:jane"]);
    const s = step(p, "updateMapping:jane");
    expect(s).toMatchObject({
      revokesAccess: true,
      after: { groups: [] },
      before: { groups: ["sales", "analysts"] },
    });
    expect(s.reason).toBe(
      "access revoked (signs in through the identity provider: the mapping stays, groups, permissions and API tokens removed); not in the desired state (mode full)",
    );
    expect(p.accessRevoked).toEqual(["jane"]);
    expect(summarizePlan(p).people).toMatchObject({ revoke: 1, change: 0 });
    expect(p.deleteGuard.wanted).toBe(1);
  });

  test("a second plan once the groups are gone plans nothing (converges)", () => {
    const p = planOf({ actual: oidc({ mappings: [sso([])] }), policy: full });
    expect(p.steps).toEqual([]);
    expect(p.accessRevoked).toBeUndefined();
    expect(p.deleteGuard.wanted).toBe(0);
  });

  test("an organization without a built-in identity provider is the same as one on OIDC", () => {
    const p = planOf({ actual: { builtinIdp: false, groups, mappings: [sso()] }, policy: full });
    expect(stepIds(p)).toEqual(["updateMapping:jane"]);
  });

  test("a mapping whose login is gone keeps no access either (an older revoke that left the groups)", () => {
    const p = planOf({ actual: { signIn: "builtin", groups, mappings: [sso()] }, policy: full });
    expect(stepIds(p)).toEqual(["updateMapping:jane"]);
    expect(step(p, "updateMapping:jane").reason).toMatch(/^access revoked \(no login left: /);
    // Where the service cannot tell (legacy), the same.
    expect(stepIds(planOf({ actual: { groups, mappings: [sso()] }, policy: full }))).toEqual([
      "updateMapping:jane",
    ]);
  });

  test("a row marked absent with identity external is revoked whatever the organization says", () => {
    const row = aUser({ ...jane, identity: "external", authenticationId: "sub-jane", state: "absent" });
    const p = planOf({ users: [row], actual: { groups, mappings: [sso()] } });
    expect(step(p, "updateMapping:jane").reason).toMatch(
      /^access revoked \(signs in through the identity provider.*marked absent at users\.csv:\d+$/,
    );
  });

  test("a built-in leaver: the login goes and so does the access; the mapping stays; one person", () => {
    const { idp, mapping } = aSyncedUser("bob@example.com", { groups: ["sales"] });
    const p = planOf({ actual: oidc({ idpUsers: [idp], mappings: [mapping] }), policy: full });
    expect(stepIds(p).sort()).toEqual(["deleteCredentials:bob@example.com", `updateMapping:${mapping.id}`]);
    expect(step(p, `updateMapping:${mapping.id}`)).toMatchObject({
      revokesAccess: true,
      after: { groups: [] },
    });
    expect(step(p, `updateMapping:${mapping.id}`).reason).toMatch(
      /^access revoked \(their built-in login is deleted: /,
    );
    expect(p.steps.some((s) => s.kind === "deleteMapping")).toBe(false);
    expect(p.accessRevoked).toEqual([mapping.id]);
    expect(p.deleteGuard.wanted).toBe(1);
    expect(summarizePlan(p).people).toMatchObject({ revoke: 1, change: 0, remove: 0 });
  });

  test("a leaver whose login another mapping holds still signs in: their access is revoked", () => {
    const idp = anIdpUser({ email: "shared@example.com" });
    const keep = aSyncedUser("shared@example.com");
    const leaver = aMapping({ id: "old", authenticationId: idp.authenticationId, groups: ["sales"] });
    const p = planOf({
      users: [keep.user],
      actual: { signIn: "builtin", groups, idpUsers: [idp], mappings: [keep.mapping, leaver] },
      policy: full,
    });
    expect(step(p, "updateMapping:old").reason).toMatch(/their login stays: another user holds it/);
  });

  test("protected and out-of-scope leavers are never touched", () => {
    const prot = planOf({ actual: oidc({ mappings: [sso()] }), policy: { ...full, protect: ["jane"] } });
    expect(prot.steps).toEqual([]);
    expect(prot.notices).toContainEqual(
      expect.objectContaining({ kind: "protected", target: "mapping:jane" }),
    );
    const out = planOf({
      actual: oidc({ mappings: [sso()] }),
      policy: { ...full, scope: { emailDomains: ["other.com"] } },
    });
    expect(out.steps).toEqual([]);
  });

  test("membership additive: only the groups the desired state names are left", () => {
    const p = planOf({
      groups: [aDesiredGroup({ id: "sales" })],
      actual: oidc({ mappings: [sso()] }),
      policy: { ...full, membership: "additive" },
    });
    expect(step(p, "updateMapping:jane")).toMatchObject({ after: { groups: ["analysts"] } });
  });

  test("the revoke is a PUT of its own, never a bulk move", () => {
    const others = ["a", "b", "c"].map((id) =>
      aMapping({ id, authenticationId: `sub-${id}`, groups: ["sales"] }),
    );
    const p = planOf({ actual: oidc({ mappings: [sso(), ...others] }), policy: full });
    expect(p.steps.every((s) => s.kind === "updateMapping")).toBe(true);
    expect(summarizePlan(p).people.revoke).toBe(4);
  });

  test("incremental mode counts them as kept by mode while they hold access", () => {
    expect(planOf({ actual: oidc({ mappings: [sso()] }) }).keptByMode).toBe(1);
    expect(planOf({ actual: oidc({ mappings: [sso([])] }) }).keptByMode).toBeUndefined();
  });
});

describe("their grants and filters", () => {
  test("direct grants on managed workspaces are removed, in either mode, for an absent row too", () => {
    const p = planOf({
      groups: [teamWithWorkspaces],
      actual: oidc({ mappings: [sso([])], permissions: perms() }),
      policy: withPermissions(),
    });
    expect(stepIds(p)).toEqual(["revokeWorkspacePermissions:sales-emea"]);
    expect(step(p, "revokeWorkspacePermissions:sales-emea")).toMatchObject({
      changes: [{ assignee: user("jane"), after: { permissions: [], hierarchy: [] } }],
    });
    expect(step(p, "revokeWorkspacePermissions:sales-emea").reason).toMatch(/access revoked/);
    // No step of their own, and still one person revoked.
    expect(p.accessRevoked).toEqual(["jane"]);
    expect(summarizePlan(p).people.revoke).toBe(1);
    expect(summarizeDone(p, new Set()).people.revoke).toBe(0);
    expect(summarizeDone(p, new Set(p.steps.map((s) => s.id))).people.revoke).toBe(1);
    const row = aUser({ ...jane, identity: "external", authenticationId: "sub-jane", state: "absent" });
    const inc = planOf({
      users: [row],
      groups: [teamWithWorkspaces],
      actual: { groups, mappings: [sso([])], permissions: perms() },
      policy: withPermissions({ mode: "incremental" }),
    });
    expect(stepIds(inc)).toEqual(["revokeWorkspacePermissions:sales-emea"]);
  });

  test("workspaces outside permissions.workspaces and organization MANAGE stay", () => {
    const p = planOf({
      groups: [aDesiredGroup({ id: "sales", workspaces: [], organization: [] })],
      actual: oidc({
        mappings: [sso([])],
        permissions: perms({
          assignments: [{ workspace: "hr", assignee: user("jane"), permissions: ["VIEW"], hierarchy: [] }],
          organization: [{ assignee: user("jane"), permissions: ["MANAGE"] }],
        }),
      }),
      policy: withPermissions(),
    });
    expect(p.steps).toEqual([]);
    expect(p.accessRevoked).toBeUndefined();
  });

  test("over maxDeletes the whole revoke is held back, grants included (exit 3 for the run)", () => {
    const p = planOf({
      groups: [teamWithWorkspaces],
      actual: oidc({
        mappings: [sso(), aMapping({ id: "ann", authenticationId: "sub-ann", groups: [] })],
        permissions: perms({
          assignments: [
            { workspace: "sales-emea", assignee: user("jane"), permissions: ["VIEW"], hierarchy: [] },
            { workspace: "sales-emea", assignee: user("ann"), permissions: ["VIEW"], hierarchy: [] },
          ],
        }),
      }),
      policy: withPermissions({ maxDeletes: { count: 1 } }),
    });
    expect(stepIds(p)).toEqual(["updateMapping:ann (heldBack)", "updateMapping:jane (heldBack)"]);
    // Ann had only a grant: her held-back step changes nothing, it names her revoke.
    expect(step(p, "updateMapping:ann")).toMatchObject({ before: { groups: [] }, after: { groups: [] } });
    expect(p.deleteGuard).toMatchObject({ wanted: 2, limit: 1 });
    expect(summarizePlan(p).people).toMatchObject({ revoke: 2, heldBack: 2 });
    const allowed = planOf({
      groups: [teamWithWorkspaces],
      actual: oidc({ mappings: [sso()], permissions: perms() }),
      policy: withPermissions({ maxDeletes: { count: 1 } }),
    });
    expect(stepIds(allowed)).toEqual(["updateMapping:jane", "revokeWorkspacePermissions:sales-emea"]);
  });

  test("their data filters go after the access-removing steps, and are no widening", () => {
    const filter = {
      id: managedFilterId("sales-emea", user("jane")),
      workspace: "sales-emea",
      assignee: user("jane"),
      maql: renderMaql("region", ["EMEA"]),
      tags: [MANAGED_TAG],
      managed: true,
    };
    const p = planOf({
      groups: [aDesiredGroup({ id: "sales", workspaces: [], dataFilters: [] })],
      actual: oidc({
        mappings: [sso()],
        permissions: perms({
          assignments: [
            { workspace: "sales-emea", assignee: user("jane"), permissions: ["VIEW"], hierarchy: [] },
            {
              workspace: "sales-emea",
              assignee: { type: "userGroup", id: "sales" },
              permissions: ["VIEW"],
              hierarchy: [],
            },
          ],
        }),
        dataFilters: { workspaces: ["sales-emea"], filters: [filter] },
      }),
      policy: withPermissions({
        mode: "incremental",
        dataFilters: { workspaces: ["sales-*"], maxWidenings: { count: 0 } },
      }),
      users: [aUser({ ...jane, identity: "external", authenticationId: "sub-jane", state: "absent" })],
    });
    const del = step(p, "deleteDataFilter:sales-emea/user/jane");
    expect(del).toMatchObject({ status: "planned", widening: false });
    expect(del.dependsOn).toEqual(
      expect.arrayContaining(["updateMapping:jane", "revokeWorkspacePermissions:sales-emea"]),
    );
    expect(del.reason).toMatch(/goes once their access is revoked/);
  });
});

describe("their API tokens (listed for leavers only: actual.apiTokens)", () => {
  const tokens = (entries: Record<string, string[]>) => new Map(Object.entries(entries));
  const deleted = (p: ReturnType<typeof planOf>) =>
    p.steps.filter((s) => s.kind === "deleteApiToken").map((s) => `${s.target} ${s.status}`);

  test.each([
    {
      name: "a person on the identity provider",
      actual: () => oidc({ mappings: [sso()], apiTokens: tokens({ jane: ["t1", "t2"] }) }),
      person: "jane",
    },
    {
      name: "a person whose groups are already gone: the tokens alone make the revoke",
      actual: () => oidc({ mappings: [sso([])], apiTokens: tokens({ jane: ["t1", "t2"] }) }),
      person: "jane",
    },
    {
      name: "a built-in leaver",
      actual: () => {
        const { idp, mapping } = aSyncedUser("jane@example.com", { id: "jane", groups: ["sales"] });
        return oidc({ idpUsers: [idp], mappings: [mapping], apiTokens: tokens({ jane: ["t1", "t2"] }) });
      },
      person: "jane",
    },
  ])("$name: each token deleted by id, one revoke, one deletion for maxDeletes", ({ actual, person }) => {
    const p = planOf({ actual: actual(), policy: full });
    expect(deleted(p)).toEqual([`${person}/t1 planned`, `${person}/t2 planned`]);
    const s = step(p, `deleteApiToken:${person}/t1`);
    expect(s).toMatchObject({ userId: person, tokenId: "t1", touches: [`mapping:${person}`] });
    expect(s.reason).toMatch(/^access revoked \(.*API tokens removed\)/);
    expect(p.steps.some((x) => x.kind === "deleteMapping")).toBe(false);
    expect(p.accessRevoked).toEqual([person]);
    expect(p.deleteGuard.wanted).toBe(1);
    expect(summarizePlan(p).people).toMatchObject({ revoke: 1, change: 0 });
  });

  test("over maxDeletes the tokens are held back with the rest of the revoke", () => {
    const others = aMapping({ id: "ann", authenticationId: "sub-ann", groups: ["sales"] });
    const p = planOf({
      actual: oidc({ mappings: [sso(), others], apiTokens: tokens({ jane: ["t1"], ann: ["t9"] }) }),
      policy: { ...full, maxDeletes: { count: 1 } },
    });
    expect(deleted(p)).toEqual(["ann/t9 heldBack", "jane/t1 heldBack"]);
    expect(p.deleteGuard).toMatchObject({ wanted: 2, limit: 1 });
  });

  test("a present person's tokens are never touched, nor a protected leaver's", () => {
    const present = planOf({
      users: [
        aUser({ ...jane, identity: "external", authenticationId: "sub-jane", groups: ["sales", "analysts"] }),
      ],
      actual: oidc({ mappings: [sso()], apiTokens: tokens({ jane: ["t1"] }) }),
      policy: full,
    });
    expect(deleted(present)).toEqual([]);
    const prot = planOf({
      actual: oidc({ mappings: [sso()], apiTokens: tokens({ jane: ["t1"] }) }),
      policy: { ...full, protect: ["jane"] },
    });
    expect(prot.steps).toEqual([]);
  });

  test("deletions: remove deletes the user, and their tokens with it: no token step", () => {
    const p = planOf({
      actual: oidc({ mappings: [sso()], apiTokens: tokens({ jane: ["t1"] }) }),
      policy: { ...full, deletions: "remove" },
    });
    expect(stepIds(p)).toEqual(["deleteMapping:jane"]);
  });
});
