/**
 * A small Active Directory tree for the fake AD server: `users` people under OU=Staff
 * (`u0000`...), the group All-Staff with the first `big` of them as members, and Small-Team with
 * the first `small`.
 */
import { AD_SUFFIX, type AdEntry } from "./fake-ad.js";

export const STAFF_OU = `OU=Staff,${AD_SUFFIX}`;
export const GROUPS_OU = `OU=Groups,${AD_SUFFIX}`;

export const userId = (i: number): string => `u${String(i).padStart(4, "0")}`;
export const userDn = (i: number): string => `CN=User ${userId(i)},${STAFF_OU}`;

export function adGroup(cn: string, member: string[]): AdEntry {
  return { dn: `CN=${cn},${GROUPS_OU}`, attributes: { objectClass: ["top", "group"], cn: [cn], member } };
}

export function adDirectory(o: { users: number; big: number; small: number }): AdEntry[] {
  const entries: AdEntry[] = [
    { dn: AD_SUFFIX, attributes: { objectClass: ["top", "domain"], dc: ["corp"] } },
    { dn: STAFF_OU, attributes: { objectClass: ["top", "organizationalUnit"], ou: ["Staff"] } },
    { dn: GROUPS_OU, attributes: { objectClass: ["top", "organizationalUnit"], ou: ["Groups"] } },
  ];
  for (let i = 0; i < o.users; i++)
    entries.push({
      dn: userDn(i),
      attributes: {
        objectClass: ["top", "person", "organizationalPerson", "user"],
        cn: [`User ${userId(i)}`],
        sAMAccountName: [userId(i)],
        userPrincipalName: [`${userId(i)}@corp.example.com`],
      },
    });
  const first = (n: number): string[] => Array.from({ length: n }, (_, i) => userDn(i));
  entries.push(adGroup("All-Staff", first(o.big)), adGroup("Small-Team", first(o.small)));
  return entries;
}
