/**
 * JSON.stringify's text (no indentation) in pieces: objects and arrays down to `depth` levels are
 * written member by member, deeper values by JSON.stringify itself, so the joined pieces are the
 * same bytes as one JSON.stringify of the whole value, and a 10,000-person review is never one
 * string (docs/benchmarks.md). For plain data only: no toJSON at the levels walked (a value with
 * toJSON is handed to JSON.stringify whole, which calls it).
 */

/** What JSON.stringify leaves out of an object, and writes as null in an array. */
const skipped = (v: unknown): boolean => v === undefined || typeof v === "function" || typeof v === "symbol";

export function* jsonChunks(value: unknown, depth: number): Generator<string> {
  if (
    depth <= 0 ||
    value === null ||
    typeof value !== "object" ||
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  ) {
    yield JSON.stringify(value) ?? "null";
    return;
  }
  if (Array.isArray(value)) {
    yield "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ",";
      const v: unknown = value[i];
      yield* jsonChunks(skipped(v) ? null : v, depth - 1);
    }
    yield "]";
    return;
  }
  yield "{";
  let first = true;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (skipped(v)) continue;
    yield `${first ? "" : ","}${JSON.stringify(k)}:`;
    first = false;
    yield* jsonChunks(v, depth - 1);
  }
  yield "}";
}
