/**
 * The access review as JSON: its snapshot (review/snapshot.ts), described by
 * docs/review.schema.json. Keys in the order the snapshot is built, so the same organization state
 * gives the same bytes except for the listing's time and request count. Each element of a list
 * (a person, a row, a reason set) is one compact line, so a 10,000-person snapshot stays small
 * and still diffs line by line; the rest is indented.
 */
import type { Snapshot } from "../../review/snapshot.js";

/** The same text in pieces (a list element each), for writing a large snapshot without one string. */
export function* snapshotJsonChunks(snapshot: Snapshot): Generator<string> {
  yield "{\n";
  let first = true;
  for (const [key, value] of Object.entries(snapshot)) {
    if (value === undefined) continue;
    const lead = `${first ? "" : ",\n"}  ${JSON.stringify(key)}: `;
    first = false;
    if (!Array.isArray(value)) yield lead + JSON.stringify(value, null, 2).replace(/\n/g, "\n  ");
    else if (value.length === 0) yield `${lead}[]`;
    else {
      yield `${lead}[\n`;
      for (let i = 0; i < value.length; i++) yield `${i > 0 ? ",\n" : ""}    ${JSON.stringify(value[i])}`;
      yield "\n  ]";
    }
  }
  yield "\n}\n";
}

export function renderSnapshotJson(snapshot: Snapshot): string {
  return [...snapshotJsonChunks(snapshot)].join("");
}
