/**
 * A snapshot read back from JSON (`--from`, `--since`, `review verify`) has a string and two lists
 * of its own in each of its rows (a million for 100,000 people) where a handful of distinct ones
 * would do: the person's key, the workspace, the granted and effective permissions. This makes
 * rows of equal values share one, as a review just built does (docs/benchmarks.md figure 16).
 * The values do not change, so neither do the digest and the files rendered.
 */
import type { Snapshot, SnapshotRow } from "./snapshot.js";

/** A function that hands back the first value of each key it was given: equal values, one copy. */
export function interner<T>(key: (value: T) => string): (value: T) => T {
  const known = new Map<string, T>();
  return (value) => {
    const k = key(value);
    const had = known.get(k);
    if (had !== undefined) return had;
    known.set(k, value);
    return value;
  };
}

/** The snapshot with its rows' equal values shared (in place); returned for chaining. */
export function shareRowParts(snapshot: Snapshot): Snapshot {
  const share = rowSharer();
  for (const row of snapshot.rows as unknown[]) share(row);
  return snapshot;
}

/**
 * A function that shares a row's equal values with the rows before it (in place), for rows shared
 * as they are read (cli/campaign/files.ts); anything but an object passes as it is.
 */
export function rowSharer(): (row: unknown) => unknown {
  const text = interner<string>((s) => s);
  const list = interner<SnapshotRow["granted"]>((l) => JSON.stringify(l));
  return (row) => {
    if (typeof row !== "object" || row === null) return row;
    const r = row as Partial<SnapshotRow>;
    if (typeof r.person === "string") r.person = text(r.person);
    if (typeof r.workspace === "string") r.workspace = text(r.workspace);
    if (typeof r.scope === "string") r.scope = text(r.scope) as SnapshotRow["scope"];
    if (Array.isArray(r.granted)) r.granted = list(r.granted);
    if (Array.isArray(r.effective)) r.effective = list(r.effective);
    return row;
  };
}
