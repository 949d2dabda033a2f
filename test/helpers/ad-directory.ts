/**
 * A small Active Directory tree for the fake AD server: `users` people under OU=Staff
 * (`u0000`...), the group All-Staff with the first `big` of them as members, and Small-Team with
 * the first `small`.
 */
import { Client } from "ldapts";
import { AD_ADMIN_DN, AD_ADMIN_PASSWORD, AD_BIND_DN, AD_SUFFIX, type AdEntry } from "./fake-ad.js";

export const STAFF_OU = `OU=Staff,${AD_SUFFIX}`;
export const GROUPS_OU = `OU=Groups,${AD_SUFFIX}`;

/** Enabled accounts only: userAccountControl's ACCOUNTDISABLE bit (2) clear (the AD recipe's filter). */
export const ENABLED_USERS = "(&(objectClass=user)(!(userAccountControl:1.2.840.113556.1.4.803:=2)))";

/**
 * `source.ldap` for this tree on the fake AD at `url` (the password in AD_PW): people under
 * OU=Staff who are enabled, groups under OU=Groups, e-mail and id from userPrincipalName and
 * sAMAccountName; `over` adds or replaces keys (groups, nested, changesBy...).
 */
export function adLdapSource(url: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    url,
    bindDn: AD_BIND_DN,
    passwordEnv: "AD_PW",
    baseDn: STAFF_OU,
    groupBaseDn: GROUPS_OU,
    userFilter: ENABLED_USERS,
    groupFilter: "(objectClass=group)",
    attributes: { email: "{userPrincipalName}", id: "{sAMAccountName}" },
    lowerCase: ["email", "id"],
    ...over,
  };
}

export const userId = (i: number): string => `u${String(i).padStart(4, "0")}`;
export const userDn = (i: number): string => `CN=User ${userId(i)},${STAFF_OU}`;

/** An enabled account (userAccountControl 512) under OU=Staff: `u0000@corp.example.com`... */
export function adPerson(i: number): AdEntry {
  return {
    dn: userDn(i),
    attributes: {
      objectClass: ["top", "person", "organizationalPerson", "user"],
      cn: [`User ${userId(i)}`],
      sAMAccountName: [userId(i)],
      userPrincipalName: [`${userId(i)}@corp.example.com`],
      userAccountControl: ["512"],
    },
  };
}

/** Writes to the fake AD at `url` as its administrator (the reader's account may only read). */
export async function asAdAdmin(url: string, fn: (c: Client) => Promise<unknown>): Promise<void> {
  const client = new Client({ url });
  await client.bind(AD_ADMIN_DN, AD_ADMIN_PASSWORD);
  try {
    await fn(client);
  } finally {
    await client.unbind();
  }
}

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
