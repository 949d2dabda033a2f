/**
 * Active Directory's ranged attribute values (MS-ADTS 3.1.1.3.1.3.3). A multi-valued attribute
 * with more values than the server's MaxValRange (1,500 by default, 5,000 on newer servers)
 * comes as `member;range=0-1499` and no plain `member`; the rest is asked for by DN, one base
 * search per range (`member;range=1500-*`), until a range ends in `*`. A group must never read
 * as smaller than it is (under `membership: exact` its missing members would be removed), so an
 * answer that does not continue the list is a DirectoryError, never a shorter list.
 */
import { DirectoryError } from "../../../errors.js";
import type { LdapConnection } from "./client.js";
import { valuesOf, type Values } from "./template.js";

type Value = string | Buffer;

/** An attribute's values as one entry gave them; `next` is where the rest starts, if there is more. */
export interface FirstRange {
  values: readonly Value[];
  next?: number;
}

interface Part {
  key: string;
  lo: number;
  hi: number | "*";
  values: readonly Value[];
}

const RANGE = /^([^;]+);range=(\d+)-(\d+|\*)$/i;

/** The ranged forms of `name` (`name;range=lo-hi`, any case) that carry values. */
function partsOf(values: Values, name: string): Part[] {
  const parts: Part[] = [];
  for (const [key, list] of values) {
    const m = RANGE.exec(key);
    if (!m || m[1]!.toLowerCase() !== name.toLowerCase() || list.length === 0) continue;
    parts.push({ key, lo: Number(m[2]), hi: m[3] === "*" ? "*" : Number(m[3]), values: list });
  }
  return parts;
}

function broken(dn: string, asked: string, what: string): DirectoryError {
  return new DirectoryError({
    message:
      `the directory's answer for ${asked} of ${dn} ${what}, so the group's values cannot be read in full. ` +
      `Nothing was sent to the service. Run again (the group may have changed while it was read); ` +
      `if it persists, check the server's ranged retrieval (MaxValRange) and the group.`,
  });
}

/** The one part of a ranged answer, checked to begin at `lo` and not to end before it. */
function onePart(parts: Part[], dn: string, asked: string, lo: number): Part {
  if (parts.length !== 1)
    throw broken(
      dn,
      asked,
      parts.length === 0
        ? "has no values"
        : `has ${parts.length} ranges (${parts.map((p) => p.key).join(", ")})`,
    );
  const part = parts[0]!;
  if (part.lo !== lo) throw broken(dn, asked, `is ${part.key}, which does not continue at ${lo}`);
  if (part.hi !== "*" && part.hi < part.lo)
    throw broken(dn, asked, `is ${part.key}, a range that ends before it starts`);
  return part;
}

/** `name`'s values in an entry read by a search: the plain attribute, or its first range. */
export function firstRange(values: Values, name: string, dn: string): FirstRange {
  const parts = partsOf(values, name);
  const plain = values.get(name.toLowerCase()) ?? [];
  if (parts.length === 0) return { values: plain };
  if (plain.length > 0) throw broken(dn, name, `has both ${name} and ${parts.map((p) => p.key).join(", ")}`);
  const part = onePart(parts, dn, name, 0);
  return part.hi === "*" ? { values: part.values } : { values: part.values, next: part.hi + 1 };
}

/** The rest of a ranged attribute from `next` on: one base-scope read per range, until `*`. */
export async function remainingRange(
  connection: LdapConnection,
  options: { dn: string; name: string; next: number },
): Promise<Value[]> {
  const { dn, name } = options;
  const rest: Value[] = [];
  let lo = options.next;
  for (;;) {
    const asked = `${name};range=${lo}-*`;
    const entry = await connection.entry({ dn, attributes: [asked] });
    if (entry === undefined) throw broken(dn, asked, "has no entry (was the group deleted?)");
    const part = onePart(partsOf(valuesOf(entry), name), dn, asked, lo);
    rest.push(...part.values);
    if (part.hi === "*") return rest;
    lo = part.hi + 1;
  }
}
