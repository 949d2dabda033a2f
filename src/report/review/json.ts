/**
 * The access review as JSON: its snapshot (review/snapshot.ts), described by
 * docs/review.schema.json. Keys in the order the snapshot is built, so the same organization state
 * gives the same bytes except for the listing's time and request count.
 */
import type { Snapshot } from "../../review/snapshot.js";

export function renderSnapshotJson(snapshot: Snapshot): string {
  return `${JSON.stringify(snapshot, null, 2)}\n`;
}
