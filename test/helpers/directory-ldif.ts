/**
 * A generated directory: `count` people under ou=people and nested groups under ou=groups:
 * all-staff ⊃ {engineering ⊃ {backend, frontend}, sales}, plus "contractors" (no rule picks it:
 * its members are in none of the user groups) and one broken entry outside ou=people.
 */
import { SUFFIX } from "./slapd.js";

export const PEOPLE = `ou=people,${SUFFIX}`;
export const GROUPS = `ou=groups,${SUFFIX}`;
export const personDn = (i: number): string => `uid=p${String(i).padStart(6, "0")},${PEOPLE}`;
export const groupDn = (cn: string): string => `cn=${cn},${GROUPS}`;

export function person(i: number): string {
  const uid = `p${String(i).padStart(6, "0")}`;
  return [
    `dn: ${personDn(i)}`,
    "objectClass: inetOrgPerson",
    `uid: ${uid}`,
    `cn: Person ${i}`,
    `givenName: Person`,
    `sn: N${i}`,
    `mail: ${uid.toUpperCase()}@Example.com`,
    "",
    "",
  ].join("\n");
}

/** The team a person is directly in: backend, frontend or sales, by position. */
export function teamOf(i: number, count: number): "backend" | "frontend" | "sales" {
  return i < count * 0.4 ? "backend" : i < count * 0.7 ? "frontend" : "sales";
}

function group(cn: string, members: string[]): string {
  return [
    `dn: ${groupDn(cn)}`,
    "objectClass: groupOfNames",
    `cn: ${cn}`,
    ...members.map((m) => `member: ${m}`),
    "",
    "",
  ].join("\n");
}

export function directoryLdif(count: number): string {
  const parts: string[] = [];
  for (let i = 0; i < count; i++) parts.push(person(i));
  const team = (t: string): string[] =>
    [...Array(count).keys()].filter((i) => teamOf(i, count) === t).map(personDn);
  parts.push(group("backend", team("backend")));
  parts.push(group("frontend", team("frontend")));
  parts.push(group("sales", team("sales")));
  parts.push(group("engineering", [groupDn("backend"), groupDn("frontend")]));
  parts.push(group("all-staff", [groupDn("engineering"), groupDn("sales")]));
  parts.push(group("contractors", [personDn(0)]));
  parts.push(`dn: ou=others,${SUFFIX}\nobjectClass: organizationalUnit\nou: others\n\n`);
  parts.push(
    `dn: uid=nomail,ou=others,${SUFFIX}\nobjectClass: inetOrgPerson\nuid: nomail\ncn: No Mail\nsn: M\n\n`,
  );
  // Invisible and direction-changing characters, as a directory can hold them (LDIF base64).
  const b64 = (s: string): string => Buffer.from(s).toString("base64");
  parts.push(
    `dn: uid=spoofed,ou=others,${SUFFIX}\nobjectClass: inetOrgPerson\nuid: spoofed\nmail: spoofed@example.org\n` +
      `cn:: ${b64("Ann \u202Egnp.exe")}\nsn: S\nemployeeNumber:: ${b64("sub\u200B1")}\n\n`,
  );
  return parts.join("");
}
