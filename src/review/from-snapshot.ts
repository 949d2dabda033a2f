/**
 * A snapshot (snapshot.ts) read back into the review model the renderers read (types.ts): each
 * person's rows become their access again, naming the very reason and filter lists the snapshot
 * holds once. Every format renders from this, for a review just listed as for a saved one, so
 * `--from` writes the bytes the direct run wrote. Also: whether a parsed file is a snapshot.
 */
import type { OrganizationPermission, WorkspacePermission } from "../permissions.js";
import {
  SNAPSHOT_FORMAT_VERSION,
  SNAPSHOT_KIND,
  type Snapshot,
  type SnapshotHeader,
  type SnapshotRow,
} from "./snapshot.js";
import {
  REVIEW_FORMAT_VERSION,
  type Review,
  type ReviewPerson,
  type ReviewSnapshot,
  type WorkspaceAccess,
} from "./types.js";

export function reviewHeaderOf(h: SnapshotHeader): ReviewSnapshot {
  return {
    generatedAt: h.listedAt,
    organization: h.organization,
    baseUrl: h.baseUrl,
    ...(h.organizationId !== undefined ? { organizationId: h.organizationId } : {}),
    usersyncVersion: h.usersyncVersion,
    digest: h.digest,
    ...(h.signature !== undefined ? { signature: h.signature } : {}),
  };
}

/** A parsed JSON file that is a snapshot this usersync reads, or why it is not. */
export function asSnapshot(value: unknown): Snapshot | string {
  const v = value as Partial<Snapshot> & { kind?: unknown; formatVersion?: unknown };
  if (typeof v !== "object" || v === null || Array.isArray(v))
    return "not a usersync review snapshot (not a JSON object)";
  if (v.kind === "usersync-access-review" && v.formatVersion === 1)
    return "a review of formatVersion 1 (usersync before the snapshot); make a new one with usersync review --format json --out FILE";
  const h = v.header;
  if (typeof h !== "object" || h === null || h.kind !== SNAPSHOT_KIND)
    return `not a usersync review snapshot (no "header" with "kind": "${SNAPSHOT_KIND}")`;
  if (h.formatVersion !== SNAPSHOT_FORMAT_VERSION)
    return `formatVersion ${String(h.formatVersion)}; this usersync reads ${SNAPSHOT_FORMAT_VERSION}`;
  for (const k of [
    "people",
    "rows",
    "reasonSets",
    "organizationReasonSets",
    "filterSets",
    "findings",
  ] as const)
    if (!Array.isArray(v[k])) return `"${k}" missing or not a list`;
  if (typeof h.listedAt !== "string" || typeof h.digest !== "string")
    return "header without listedAt or digest";
  return v as Snapshot;
}

function pick<T>(lists: readonly T[][], at: number | undefined, what: string, rowId: string): T[] {
  if (at === undefined) return [];
  const list = lists[at];
  if (!Array.isArray(list)) throw new Error(`row ${rowId}: ${what} ${at} is not in the snapshot`);
  return list;
}

/**
 * The review model of a snapshot; throws (with the row) when a row names a list the snapshot lacks.
 * With `release`, the rows are moved into the people's access (the snapshot's `rows` left empty),
 * so a large snapshot never holds both: for a caller that renders the review and nothing else.
 */
// eslint-disable-next-line max-lines-per-function -- one pass: rows back into people, then the tables as they are
export function fromSnapshot(s: Snapshot, o: { release?: boolean } = {}): Review {
  const names = new Map(s.workspaces.map((w) => [w.id, w.name] as const));
  const byPerson = new Map<string, ReviewPerson>();
  const people: ReviewPerson[] = s.people.map((p) => {
    // Copied member by member: `{ ...p, access: [] }` of a parsed person gave every person a
    // hidden class of their own in V8 (docs/benchmarks.md figure 16). The same members in order.
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(p))
      if (k === "__proto__")
        Object.defineProperty(copy, k, { value: v, enumerable: true, writable: true, configurable: true });
      else copy[k] = v;
    copy["organizationPermissions"] = [];
    copy["organizationReasons"] = [];
    copy["access"] = [];
    const person = copy as unknown as ReviewPerson;
    byPerson.set(p.key, person);
    return person;
  });
  const rows: Array<SnapshotRow | undefined> = s.rows;
  if (o.release === true) s.rows = [];
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    if (o.release === true) rows[i] = undefined;
    const p = byPerson.get(r.person);
    if (!p) throw new Error(`row ${r.rowId}: person ${r.person} is not in the snapshot's people`);
    if (r.scope === "organization") {
      p.organizationPermissions = r.granted as OrganizationPermission[];
      p.organizationReasons = pick(s.organizationReasonSets, r.reasons, "organization reason set", r.rowId);
      continue;
    }
    const ws = r.workspace ?? "";
    const name = names.get(ws);
    const a: WorkspaceAccess = {
      workspace: ws,
      ...(name !== undefined ? { workspaceName: name } : {}),
      permissions: r.effective as WorkspacePermission[],
      granted: r.granted as WorkspacePermission[],
      reaches: r.reaches,
      ...(r.viaOrganization === true ? { viaOrganization: true } : {}),
      manage: r.manage,
      reasons: pick(s.reasonSets, r.reasons, "reason set", r.rowId),
      filters: pick(s.filterSets, r.filters, "filter set", r.rowId),
      unfiltered: r.unfiltered === true,
      ...(r.lastChange !== undefined ? { lastChange: r.lastChange } : {}),
      ...(r.desired !== undefined
        ? {
            desired: {
              permissions: r.desired.permissions as WorkspacePermission[],
              filters: r.desired.filters,
            },
          }
        : {}),
    };
    p.access.push(a);
  }
  return {
    formatVersion: REVIEW_FORMAT_VERSION,
    kind: "usersync-access-review",
    snapshot: reviewHeaderOf(s.header),
    summary: s.summary,
    evidence: s.evidence,
    findings: s.findings,
    workspaces: s.workspaces,
    groups: s.groups,
    people,
    organizationPermissions: s.organizationPermissions,
    ...(s.changes
      ? {
          changes: {
            since: reviewHeaderOf(s.changes.since),
            changes: s.changes.changes,
            counts: s.changes.counts,
          },
        }
      : {}),
  };
}
