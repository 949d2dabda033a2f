/**
 * A made-up Okta organization for tests, benchmarks and rehearsals: `people` people spread
 * evenly over `groups` groups (`team-00`, `team-01`, …), ids in Okta's shape (`00u…`, `00g…`, 20
 * characters), sorted as Okta sorts them. Statuses may be given per person.
 */
import type { OktaGroup, OktaStatus, OktaUser } from "./types.js";

export const oktaUserId = (n: number): string => `00u${n.toString(36).padStart(17, "0")}`;
export const oktaGroupId = (n: number): string => `00g${n.toString(36).padStart(17, "0")}`;

export function makeDirectory(o: {
  people: number;
  groups: number;
  status?: (n: number) => OktaStatus;
  domain?: string;
}): { users: OktaUser[]; groups: OktaGroup[] } {
  const domain = o.domain ?? "example.com";
  const users: OktaUser[] = [];
  const groups: OktaGroup[] = Array.from({ length: o.groups }, (_, g) => ({
    id: oktaGroupId(g),
    type: "OKTA_GROUP",
    profile: { name: `team-${String(g).padStart(2, "0")}`, description: `Team ${g}` },
    members: [],
  }));
  for (let n = 0; n < o.people; n++) {
    const login = `person${n}@${domain}`;
    users.push({
      id: oktaUserId(n),
      status: o.status?.(n) ?? "ACTIVE",
      profile: { login, email: login, firstName: "Person", lastName: String(n), employeeNumber: `E${n}` },
    });
    if (o.groups > 0) groups[n % o.groups]!.members.push(oktaUserId(n));
  }
  return { users, groups };
}
