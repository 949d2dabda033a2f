/** A small plan with every kind of line a renderer prints: creates, updates, deletions held back, notices. */
import { plan } from "../../src/plan/index.js";
import type { Plan } from "../../src/plan/types.js";
import {
  aSyncedUser,
  aDesiredGroup,
  aDesiredState,
  aGroup,
  aMapping,
  aPolicy,
  aUser,
  anActualState,
  anIdpUser,
} from "../plan/builders.js";

export function samplePlan(options: { maxDeletes?: number } = {}): Plan {
  const desired = aDesiredState(
    [
      aUser({
        email: "jane@example.com",
        id: "jane",
        displayName: "Jane Doe",
        groups: ["analysts"],
        source: { file: "users.csv", line: 2 },
      }),
      aUser({
        email: "bob@example.com",
        id: "bob",
        displayName: "Bob B.",
        firstname: "Bob",
        groups: ["analysts"],
        source: { file: "users.csv", line: 3 },
      }),
      aUser({
        email: "pat@example.com",
        id: "pat",
        password: "Secret-Pa55",
        source: { file: "users.csv", line: 4 },
      }),
    ],
    [
      aDesiredGroup({
        id: "analysts",
        name: "Analysts",
        parents: ["staff"],
        source: { file: "groups.yaml", line: 2 },
      }),
    ],
  );
  const actual = anActualState({
    idpUsers: [
      anIdpUser({ email: "bob@example.com", displayName: "Bob" }),
      anIdpUser({ email: "old@example.com" }),
      anIdpUser({ email: "stray@other.com" }),
    ],
    mappings: [
      aMapping({
        id: "bob",
        authenticationId: "auth-bob@example.com",
        email: "bob@example.com",
        groups: ["staff"],
      }),
      aMapping({ id: "old", authenticationId: "auth-old@example.com", email: "old@example.com" }),
      aMapping({ id: "admin" }),
      aMapping({ id: "partner", email: "p@partner.com" }),
    ],
    groups: [aGroup({ id: "staff", name: "Staff" })],
  });
  const policy = aPolicy({
    mode: "full",
    deletions: "remove",
    maxDeletes: { count: options.maxDeletes ?? 5 },
    passwords: "column",
    scope: { emailDomains: ["example.com"] },
  });
  return plan({ desired, actual, policy, profile: "v1", limits: { concurrency: 4, requestsPerSecond: 10 } });
}

/**
 * A plan that changes permissions: a group gains on one workspace and loses on another (full
 * mode), a user gains, the organization changes; `maxRemovals` 0 holds the removals back.
 */
export function permissionPlan(options: { maxRemovals?: number } = {}): Plan {
  const grant = (workspace: string, permissions: string[], hierarchy: string[] = []) =>
    ({ workspace, permissions, hierarchy }) as never;
  const desired = aDesiredState(
    [aUser({ email: "jane@example.com", id: "jane", workspaces: [grant("sales-emea", ["EXPORT"])] })],
    [
      aDesiredGroup({ id: "sales", workspaces: [grant("sales-emea", ["VIEW", "EXPORT"], ["VIEW"])] }),
      aDesiredGroup({ id: "finance", workspaces: [], organization: ["SELF_CREATE_TOKEN"] }),
    ],
  );
  const group = (id: string) => ({ type: "userGroup" as const, id });
  const actual = anActualState({
    mappings: [aMapping({ id: "jane", email: "jane@example.com" })],
    groups: [aGroup({ id: "sales" }), aGroup({ id: "finance" })],
    permissions: {
      workspaces: [{ id: "sales" }, { id: "sales-emea", parent: "sales" }, { id: "finance" }],
      assignments: [
        { workspace: "sales-emea", assignee: group("sales"), permissions: ["VIEW"], hierarchy: [] },
        {
          workspace: "finance",
          assignee: group("finance"),
          permissions: ["ANALYZE", "EXPORT"],
          hierarchy: [],
        },
      ],
      organization: [],
    },
  });
  const policy = aPolicy({
    mode: "full",
    permissions: {
      workspaces: ["*"],
      maxRemovals: { count: options.maxRemovals ?? 5 },
      allowOrganizationManage: false,
    },
  });
  return plan({ desired, actual, policy, profile: "v1", limits: { concurrency: 4, requestsPerSecond: 10 } });
}

/**
 * A reorganisation: `n` people move from `sales` to `analytics` (membership their only change,
 * so in bulk), one of them also gets a new display name, one gets a new last name (one PUT).
 */
export function bulkPlan(n: number): Plan {
  const people = Array.from({ length: n }, (_, i) =>
    aSyncedUser(`p${String(i).padStart(5, "0")}@example.com`, { groups: ["sales"] }),
  );
  const users = people.map((p) => ({ ...p.user, groups: ["analytics"] }));
  users[0] = { ...users[0]!, displayName: "Renamed" };
  users[1] = { ...users[1]!, lastname: "Changed" };
  const actual = anActualState({
    idpUsers: people.map((p) => p.idp),
    mappings: people.map((p) => p.mapping),
    groups: [aGroup({ id: "sales" }), aGroup({ id: "analytics" })],
  });
  return plan({
    desired: aDesiredState(users),
    actual,
    policy: aPolicy(),
    profile: "v1",
    limits: { concurrency: 4, requestsPerSecond: 10 },
  });
}
