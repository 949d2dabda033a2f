/**
 * `JSON.stringify(value, null, 2)` in pieces: objects and arrays down to `depth` levels are written
 * member by member, deeper values by JSON.stringify itself (re-indented), so the joined pieces are
 * the same bytes as the one string, and a campaign of 100,000 people is never one string
 * (docs/benchmarks.md figure 16). For plain data only, like html-json.ts: no toJSON at the levels
 * walked (a value with toJSON is handed to JSON.stringify whole, which calls it).
 */

/** What JSON.stringify leaves out of an object, and writes as null in an array. */
const skipped = (v: unknown): boolean => v === undefined || typeof v === "function" || typeof v === "symbol";

export function* prettyJsonChunks(value: unknown, depth: number, indent = ""): Generator<string> {
  if (
    depth <= 0 ||
    value === null ||
    typeof value !== "object" ||
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  ) {
    const text = JSON.stringify(value, null, 2) ?? "null";
    // A JSON text has no raw newline in a string: every newline starts an indented line.
    yield indent === "" ? text : text.replaceAll("\n", `\n${indent}`);
    return;
  }
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return yield "[]";
    for (let i = 0; i < value.length; i++) {
      yield `${i === 0 ? "[" : ","}\n${inner}`;
      const v: unknown = value[i];
      yield* prettyJsonChunks(skipped(v) ? null : v, depth - 1, inner);
    }
    return yield `\n${indent}]`;
  }
  let first = true;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (skipped(v)) continue;
    yield `${first ? "{" : ","}\n${inner}${JSON.stringify(k)}: `;
    first = false;
    yield* prettyJsonChunks(v, depth - 1, inner);
  }
  yield first ? "{}" : `\n${indent}}`;
}
