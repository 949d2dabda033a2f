/**
 * A review (types.ts, what build.ts computes) as its snapshot (snapshot.ts): the people without
 * their access, one row per person x workspace and per organization-level grant, each naming its
 * reasons and filters by their index in lists written once, and the digest over it all.
 */
import { snapshotRemovals } from "./removals.js";
import { effectiveOrganization } from "../permissions.js";
import { snapshotDigest } from "./canonical.js";
import {
  rowIdOf,
  SNAPSHOT_FORMAT_VERSION,
  SNAPSHOT_KIND,
  type Snapshot,
  type SnapshotFinding,
  type SnapshotHeader,
  type SnapshotPerson,
  type SnapshotRow,
} from "./snapshot.js";
import type { Finding, Review, ReviewPerson, ReviewSnapshot } from "./types.js";

/** Each distinct list once: by the object first (people of one group set share theirs), then by its text. */
function interner<T>(): { lists: T[][]; index(list: T[]): number } {
  const byRef = new WeakMap<object, number>();
  const byText = new Map<string, number>();
  const lists: T[][] = [];
  return {
    lists,
    index(list) {
      const known = byRef.get(list);
      if (known !== undefined) return known;
      const text = JSON.stringify(list);
      let at = byText.get(text);
      if (at === undefined) {
        at = lists.length;
        lists.push(list);
        byText.set(text, at);
      }
      byRef.set(list, at);
      return at;
    },
  };
}

export function headerOf(s: ReviewSnapshot): SnapshotHeader {
  return {
    kind: SNAPSHOT_KIND,
    formatVersion: SNAPSHOT_FORMAT_VERSION,
    organization: s.organization,
    ...(s.organizationId !== undefined ? { organizationId: s.organizationId } : {}),
    baseUrl: s.baseUrl,
    listedAt: s.generatedAt,
    usersyncVersion: s.usersyncVersion,
    digest: s.digest,
    ...(s.signature !== undefined ? { signature: s.signature } : {}),
  };
}

function personOf(p: ReviewPerson): SnapshotPerson {
  const { access: _a, organizationPermissions: _o, organizationReasons: _r, ...rest } = p;
  return rest;
}

/** The row a finding is about: its workspace's, or the organization row for organization MANAGE. */
export function findingRow(f: Pick<Finding, "kind" | "person" | "workspace">): string | undefined {
  if (f.workspace !== undefined) return rowIdOf(f.person, f.workspace);
  return f.kind === "privilegedOutsideDesired" ? rowIdOf(f.person, undefined) : undefined;
}

/**
 * The snapshot of a review, with its digest (the review's own `snapshot.digest` is not read).
 * With `release`, each person's access is moved into the rows (their `access` left empty), so a
 * large review never holds its rows twice: for a caller done with the review (cli/commands/review.ts).
 */
// eslint-disable-next-line max-lines-per-function -- one pass: each person's rows, then the tables as they are
export function toSnapshot(review: Review, o: { release?: boolean } = {}): Snapshot {
  const reasons = interner<Review["people"][number]["access"][number]["reasons"][number]>();
  const orgReasons = interner<Review["people"][number]["organizationReasons"][number]>();
  const filters = interner<Review["people"][number]["access"][number]["filters"][number]>();
  const rows: SnapshotRow[] = [];
  for (const p of review.people) {
    if (p.organizationPermissions.length > 0)
      rows.push({
        rowId: rowIdOf(p.key, undefined),
        person: p.key,
        scope: "organization",
        granted: p.organizationPermissions,
        effective: effectiveOrganization(p.organizationPermissions),
        reaches: true,
        manage: p.organizationPermissions.includes("MANAGE"),
        reasons: orgReasons.index(p.organizationReasons),
      });
    for (const a of p.access) {
      // The optional members added after, not spread in: an object of exactly its members
      // (a spread leaves room for more), 24 bytes less on each of a million rows.
      const row: SnapshotRow = {
        rowId: rowIdOf(p.key, a.workspace),
        person: p.key,
        scope: "workspace",
        workspace: a.workspace,
        granted: a.granted,
        effective: a.permissions,
        reaches: a.reaches,
        manage: a.manage,
        reasons: reasons.index(a.reasons),
        filters: filters.index(a.filters),
        unfiltered: a.unfiltered,
      };
      if (a.viaOrganization === true) row.viaOrganization = true;
      if (a.lastChange !== undefined) row.lastChange = a.lastChange;
      if (a.desired !== undefined) row.desired = a.desired;
      rows.push(row);
    }
    if (o.release === true) p.access = [];
  }
  const findings: SnapshotFinding[] = review.findings.map((f) => {
    const rowId = f.rowId ?? findingRow(f);
    return { ...f, ...(rowId !== undefined ? { rowId } : {}) };
  });
  const snapshot: Snapshot = {
    header: headerOf(review.snapshot),
    summary: review.summary,
    evidence: review.evidence,
    findings,
    workspaces: review.workspaces,
    groups: review.groups,
    people: review.people.map(personOf),
    rows,
    reasonSets: reasons.lists,
    organizationReasonSets: orgReasons.lists,
    filterSets: filters.lists,
    organizationPermissions: review.organizationPermissions,
    ...(review.changes
      ? {
          changes: {
            since: headerOf(review.changes.since),
            changes: review.changes.changes.map((c) =>
              c.workspace !== undefined || c.kind.startsWith("organizationPermissions")
                ? { ...c, rowId: rowIdOf(c.person, c.workspace) }
                : c,
            ),
            counts: review.changes.counts,
          },
          ...optionalList("removals", snapshotRemovals(review.changes.changes, rowIdOf)),
        }
      : {}),
  };
  snapshot.header.digest = snapshotDigest(snapshot);
  return snapshot;
}

/** `{ [key]: list }`, or nothing for an empty list (a snapshot without removals has no key). */
const optionalList = <K extends string, T>(key: K, list: T[]): { [k in K]?: T[] } =>
  (list.length > 0 ? { [key]: list } : {}) as { [k in K]?: T[] };
