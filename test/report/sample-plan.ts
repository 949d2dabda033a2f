/** A small plan with every kind of line a renderer prints: creates, updates, deletions held back, notices. */
import { plan } from "../../src/plan/index.js";
import type { Plan } from "../../src/plan/types.js";
import {
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
