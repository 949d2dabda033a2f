/**
 * A tenant of any size for the Graph stand-in, the same every time: `people` users spread over
 * `groups` groups (each person in one group, plus every tenth in a second), one service principal
 * and one device per group, every fiftieth person disabled and every hundredth a guest. For
 * benchmarks and large tests; small tests write their tenant by hand.
 */
import { guid, type GraphGroup, type GraphTenant, type GraphUser, type OtherObject } from "./directory.js";

export const STAND_IN_TENANT = "7d3a1c52-9f0e-4b8a-8c11-2f5e6d7a9b00";
export const STAND_IN_CLIENT = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

export function generateTenant(o: { people: number; groups: number; secret: string }): GraphTenant {
  const users: GraphUser[] = [];
  const groups: GraphGroup[] = Array.from({ length: o.groups }, (_, g) => ({
    id: guid("group", g),
    displayName: `Team ${String(g).padStart(3, "0")}`,
    mailNickname: `team${g}`,
    securityEnabled: true,
    groupTypes: [],
    members: [],
  }));
  const others: OtherObject[] = [];
  groups.forEach((g, i) => {
    for (const type of ["servicePrincipal", "device"] as const) {
      const other = { id: guid(type, i), type, displayName: `${type} ${i}` };
      others.push(other);
      g.members.push(other.id);
    }
  });
  for (let n = 0; n < o.people; n++) {
    const user: GraphUser = {
      id: guid("user", n),
      userPrincipalName: `person${n}@contoso.onmicrosoft.com`,
      mail: `person${n}@contoso.com`,
      displayName: `Person ${n}`,
      givenName: "Person",
      surname: String(n),
      accountEnabled: n % 50 !== 49,
      userType: n % 100 === 99 ? "Guest" : "Member",
    };
    users.push(user);
    groups[n % o.groups]!.members.push(user.id);
    if (n % 10 === 0) groups[(n + 1) % o.groups]!.members.push(user.id);
  }
  return {
    tenantId: STAND_IN_TENANT,
    domain: "contoso.onmicrosoft.com",
    users,
    groups,
    others,
    apps: [
      { clientId: STAND_IN_CLIENT, secrets: [o.secret], roles: ["GroupMember.Read.All", "User.Read.All"] },
    ],
  };
}
