/**
 * Dated removals (docs/audits.md "Dated removals"): an `accessLost` change since the previous
 * review is dated with the time usersync removed the person's access, when the state file's
 * `removals` (written by `apply`, cli/run-state.ts) says a run did so between the two reviews.
 * A removal outside that interval, or none recorded, leaves the change undated: someone else
 * removed it, or usersync did so without a state file.
 */
import type { ReviewChanges } from "./types.js";
import type { SnapshotRemoval } from "./snapshot.js";

/** One person's last recorded removal, ISO 8601 times. */
export interface RemovalDate {
  removedAt: string;
  runId: string;
  goneSince?: string;
}

/**
 * Dates the `accessLost` changes (in place) of people `removals` (by person key) says usersync
 * removed after `from` and no later than `to` (both ISO 8601 UTC, as reviews write them).
 */
export function dateRemovals(
  changes: ReviewChanges,
  removals: ReadonlyMap<string, RemovalDate>,
  interval: { from: string; to: string },
): void {
  for (const c of changes.changes) {
    if (c.kind !== "accessLost") continue;
    const r = removals.get(c.person);
    // ISO 8601 UTC times as reviews and the state file write them sort as the times do.
    if (r === undefined || !(r.removedAt > interval.from && r.removedAt <= interval.to)) continue;
    c.removedAt = r.removedAt;
    c.runId = r.runId;
    if (r.goneSince !== undefined) c.goneSince = r.goneSince;
  }
}

/** The snapshot's `removals`: every access lost since the previous review, dated where known. */
export function snapshotRemovals(
  changes: ReviewChanges["changes"],
  rowIdOf: (person: string, workspace: string | undefined) => string,
): SnapshotRemoval[] {
  return changes
    .filter((c) => c.kind === "accessLost")
    .map((c) => ({
      rowId: rowIdOf(c.person, c.workspace),
      person: c.person,
      ...(c.workspace !== undefined ? { workspace: c.workspace } : {}),
      permissions: c.before ?? [],
      ...(c.removedAt !== undefined ? { removedAt: c.removedAt, runId: c.runId! } : {}),
      ...(c.goneSince !== undefined ? { goneSince: c.goneSince } : {}),
    }));
}
