/** A generated customer for benchmarks and paging tests: `people` users spread over `groups` groups. */
import type { GoogleGroup, GoogleStandInOptions, GoogleUser } from "./types.js";

export function generateCustomer(o: {
  people: number;
  groups: number;
  domain?: string;
}): Pick<GoogleStandInOptions, "customerId" | "domain" | "users" | "groups"> {
  const domain = o.domain ?? "bench.example.com";
  const users: GoogleUser[] = [];
  const groups: GoogleGroup[] = Array.from({ length: o.groups }, (_, g) => ({
    id: `03bench${String(g).padStart(6, "0")}`,
    email: `team-${g}@${domain}`,
    name: `Team ${g}`,
    members: [],
  }));
  for (let i = 0; i < o.people; i++) {
    const id = String(110000000000000000000n + BigInt(i));
    users.push({
      id,
      primaryEmail: `person${i}@${domain}`,
      name: { givenName: `Person`, familyName: `No ${i}`, fullName: `Person No ${i}` },
    });
    groups[i % o.groups]!.members.push({ id, type: "USER" });
  }
  users.push({
    id: "119999999999999999999",
    primaryEmail: `admin@${domain}`,
    name: { givenName: "Admin", familyName: "Bench" },
    isAdmin: true,
  });
  return { customerId: "C0bench", domain, users, groups };
}
