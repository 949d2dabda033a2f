/**
 * The access review as JSON: its snapshot (review/snapshot.ts), described by
 * docs/review.schema.json. Keys in the order the snapshot is built, so the same organization state
 * gives the same bytes except for the listing's time and request count. Each element of a list
 * (a person, a row, a reason set) is one compact line, so a 10,000-person snapshot stays small
 * and still diffs line by line; the rest is indented.
 */
import type { Snapshot } from "../../review/snapshot.js";

export function renderSnapshotJson(snapshot: Snapshot): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(snapshot)) {
    if (value === undefined) continue;
    const text = Array.isArray(value)
      ? value.length === 0
        ? "[]"
        : `[\n${value.map((v) => `    ${JSON.stringify(v)}`).join(",\n")}\n  ]`
      : JSON.stringify(value, null, 2).replace(/\n/g, "\n  ");
    parts.push(`  ${JSON.stringify(key)}: ${text}`);
  }
  return `{\n${parts.join(",\n")}\n}\n`;
}
