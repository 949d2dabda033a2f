/**
 * LDAP entries as template values (the templates themselves: ../template.ts, shared by every
 * directory), DN patterns and DN comparison.
 */

export { attributesOf, binaryText, evaluate, type Values } from "../template.js";

/** Attributes whose values are binary; they are read as buffers and written as text by `binaryText`. */
export const BINARY_ATTRIBUTES = ["objectGUID"];

/** An entry's attributes by lower-case name, every value a list; the DN is not an attribute. */
export function valuesOf(entry: Record<string, unknown>): Map<string, (string | Buffer)[]> {
  const values = new Map<string, (string | Buffer)[]>();
  for (const [key, value] of Object.entries(entry)) {
    if (key === "dn") continue;
    values.set(key.toLowerCase(), (Array.isArray(value) ? value : [value]) as (string | Buffer)[]);
  }
  return values;
}

/** `*` matches any run of characters, case-insensitively; everything else is literal. */
export function globMatcher(pattern: string): (text: string) => boolean {
  const source = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  const re = new RegExp(`^${source}$`, "i");
  return (text) => re.test(text);
}

/** A DN in one canonical form for comparisons: lower case, no spaces around `,` and `=`. */
export function normaliseDn(dn: string): string {
  return dn
    .replace(/\s*([,=])\s*/g, "$1")
    .trim()
    .toLowerCase();
}
