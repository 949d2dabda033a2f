/**
 * The snapshot's digest (docs/audits.md "Recomputing the digest"): SHA-256 over the RFC 8785 JSON
 * Canonicalization Scheme (JCS) text of the snapshot with `header.digest` and `header.signature`
 * removed. JCS: no whitespace; object members sorted by their names' UTF-16 code units; strings as
 * ECMAScript's JSON.stringify writes them; numbers as ECMAScript writes them (the snapshot holds
 * integers only). Written out here because it is short; the text is hashed a piece at a time, so a
 * large snapshot is never one string.
 */
import { createHash, type Hash } from "node:crypto";

/** UTF-16 code-unit order, what RFC 8785 section 3.2.3 sorts member names by. */
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Feeds the JCS text of `value` to `write`, piece by piece. `undefined` members are left out, as JSON does. */
export function canonicalize(value: unknown, write: (piece: string) => void): void {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value))
      throw new Error("canonical JSON has no NaN or Infinity");
    write(JSON.stringify(value) ?? "null");
    return;
  }
  if (Array.isArray(value)) {
    write("[");
    for (let i = 0; i < value.length; i++) {
      if (i > 0) write(",");
      const v: unknown = value[i];
      canonicalize(v === undefined || typeof v === "function" ? null : v, write);
    }
    write("]");
    return;
  }
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined && typeof v !== "function")
    .sort(([a], [b]) => byCodeUnits(a, b));
  write("{");
  entries.forEach(([k, v], i) => {
    write(i > 0 ? `,${JSON.stringify(k)}:` : `${JSON.stringify(k)}:`);
    canonicalize(v, write);
  });
  write("}");
}

/** The JCS text as one string (small values, tests). */
export function canonicalText(value: unknown): string {
  const parts: string[] = [];
  canonicalize(value, (p) => parts.push(p));
  return parts.join("");
}

/** `sha256:<hex>` of a snapshot: its canonical text without `header.digest` and `header.signature`. */
export function snapshotDigest(snapshot: { header: object }): string {
  const { digest: _d, signature: _s, ...header } = snapshot.header as Record<string, unknown>;
  const hash: Hash = createHash("sha256");
  // Small pieces are gathered so the hash is fed in chunks of a few KiB, not one call per comma.
  let buffer = "";
  canonicalize({ ...snapshot, header }, (piece) => {
    buffer += piece;
    if (buffer.length > 16384) {
      hash.update(buffer);
      buffer = "";
    }
  });
  hash.update(buffer);
  return `sha256:${hash.digest("hex")}`;
}
