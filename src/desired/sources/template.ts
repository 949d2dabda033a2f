/**
 * Templates over a directory entry's attributes, shared by every directory source: `{mail}` is the
 * entry's first `mail` value, `{uid}@example.com` a composition, plain text a literal (`external`).
 * Attribute names match case-insensitively, because directories do not agree on case
 * (`userPrincipalName` vs `userprincipalname`).
 */

/** An entry's attributes by lower-case name, every value a list. */
export type Values = ReadonlyMap<string, readonly (string | Buffer)[]>;

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9-]*)\}/g;

/** The attribute names a template reads, lower-cased. */
export function attributesOf(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1]!.toLowerCase());
}

/**
 * The template's value for one entry; `undefined` when an attribute it names is missing (so a
 * required field is reported as missing, not as a half-filled text).
 */
export function evaluate(template: string, values: Values): string | undefined {
  let missing = false;
  const text = template.replace(PLACEHOLDER, (_, name: string) => {
    const first = values.get(name.toLowerCase())?.[0];
    if (first === undefined) {
      missing = true;
      return "";
    }
    return typeof first === "string" ? first : binaryText(name, first);
  });
  return missing ? undefined : text;
}

/**
 * AD's objectGUID in its usual text form (the byte order of the first three parts is
 * little-endian), which is what identity providers put in the `sub` claim; other binary
 * values as hex.
 */
export function binaryText(name: string, value: Buffer): string {
  if (name.toLowerCase() !== "objectguid" || value.length !== 16) return value.toString("hex");
  const hex = (from: number, to: number, reverse: boolean): string => {
    const part = [...value.subarray(from, to)];
    return (reverse ? part.reverse() : part).map((b) => b.toString(16).padStart(2, "0")).join("");
  };
  return [hex(0, 4, true), hex(4, 6, true), hex(6, 8, true), hex(8, 10, false), hex(10, 16, false)].join("-");
}

/** Text values by lower-case name, from an object's string, number and boolean properties. */
export function textValues(properties: Record<string, unknown>): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const [key, value] of Object.entries(properties))
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      values.set(key.toLowerCase(), [String(value)]);
  return values;
}
