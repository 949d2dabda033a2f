/**
 * The one adapter between the review snapshot (src/review/snapshot.ts) and the campaign: every row
 * a reviewer decides on (a person on a workspace, a person's organization permissions) as a
 * CampaignRow, under the snapshot's own `rowId`. Everything else of the campaign reads CampaignRow
 * only, so a change of the snapshot's shape is met here. A person who holds nothing has no row:
 * there is no access to keep or revoke.
 */
import { assigneeKey } from "../../permissions.js";
import type { AccessReason } from "../../plan/access/reach-types.js";
import type { Snapshot, SnapshotPerson, SnapshotRow } from "../snapshot.js";
import type { OrganizationReason } from "../types.js";
import type { CampaignReason, CampaignRow } from "./types.js";

export { ORGANIZATION_ROW } from "../snapshot.js";

const givenOf = (managed: boolean | undefined): CampaignReason["given"] =>
  managed === undefined ? "unknown" : managed ? "source" : "hand-made";

function rowGiven(reasons: readonly CampaignReason[]): CampaignRow["given"] {
  const kinds = new Set(reasons.map((r) => r.given));
  if (kinds.has("unknown") || kinds.size === 0) return "unknown";
  return kinds.size === 1 ? (kinds.has("source") ? "source" : "hand-made") : "mixed";
}

function accessReason(r: AccessReason): CampaignReason {
  return {
    kind: r.kind,
    holder: assigneeKey(r.holder),
    groupChain: r.groupChain,
    grantedOn: r.grantedOn,
    permissions: r.permissions,
    given: givenOf(r.managed),
    text: r.text,
  };
}

function organizationReason(r: OrganizationReason): CampaignReason {
  return {
    kind: r.kind,
    holder: assigneeKey(r.holder),
    groupChain: r.groupChain,
    grantedOn: "organization",
    permissions: r.permissions,
    given: givenOf(r.managed),
    text: r.text,
  };
}

/**
 * What rows share, made once: each reason set's reasons (and the row's `given`), each workspace's
 * name. Rows of equal reasons hold one list, so 100,000 people's rows are not a copy each
 * (docs/benchmarks.md figure 16); the values, and so every file written, are the same.
 */
function shared(s: Snapshot): (row: SnapshotRow) => { reasons: CampaignReason[]; workspaceName?: string } {
  const sets = new Map<string, { reasons: CampaignReason[] }>();
  const names = new Map<string, string | undefined>();
  for (const w of s.workspaces) if (!names.has(w.id)) names.set(w.id, w.name);
  return (row) => {
    const key = `${row.scope}|${row.reasons}`;
    let set = sets.get(key);
    if (set === undefined) {
      const reasons =
        row.scope === "organization"
          ? (s.organizationReasonSets[row.reasons] ?? []).map(organizationReason)
          : (s.reasonSets[row.reasons] ?? []).map(accessReason);
      set = { reasons };
      sets.set(key, set);
    }
    const workspaceName = row.workspace === undefined ? undefined : names.get(row.workspace);
    return workspaceName === undefined ? set : { ...set, workspaceName };
  };
}

function campaignRow(
  p: SnapshotPerson,
  row: SnapshotRow,
  { reasons, workspaceName }: { reasons: CampaignReason[]; workspaceName?: string },
): CampaignRow {
  return {
    rowId: row.rowId,
    person: p.key,
    ...(p.id !== undefined ? { userId: p.id } : {}),
    ...(p.email !== undefined ? { email: p.email } : {}),
    ...(p.displayName !== undefined ? { displayName: p.displayName } : {}),
    ...(row.workspace !== undefined ? { workspace: row.workspace } : {}),
    ...(workspaceName !== undefined ? { workspaceName } : {}),
    level: row.scope,
    permissions: row.granted,
    effective: row.effective,
    reasons,
    given: rowGiven(reasons),
    status: p.status,
    groups: p.groups,
  };
}

/**
 * Every row of the snapshot, in its order (people by key; a person's organization row first).
 * With `release`, each snapshot row is let go as its campaign row is made (the snapshot's `rows`
 * left empty), so a large snapshot's rows are never held twice.
 */
export function campaignRows(s: Snapshot, o: { release?: boolean } = {}): CampaignRow[] {
  const people = new Map(s.people.map((p) => [p.key, p] as const));
  const parts = shared(s);
  const rows = s.rows as Array<SnapshotRow | undefined>;
  if (o.release === true) s.rows = [];
  const out: CampaignRow[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (o.release === true) rows[i] = undefined;
    const p = people.get(row.person);
    // A row of access already removed (kept in the snapshot for dating) has nothing to decide.
    if (p !== undefined && row.removedAt === undefined) out.push(campaignRow(p, row, parts(row)));
  }
  return out;
}

/** What the campaign records of the snapshot it was opened from. */
export function snapshotHeader(s: Snapshot): {
  organization: string;
  baseUrl: string;
  generatedAt: string;
  digest: string;
} {
  const h = s.header;
  return { organization: h.organization, baseUrl: h.baseUrl, generatedAt: h.listedAt, digest: h.digest };
}

/**
 * What a later snapshot's rows named in `ids` hold (their `permissions` as a campaign row would
 * have them), by rowId: the close-out's proof that revoked access is gone. Only those rows, and
 * no campaign row made of each, so a review of 100,000 people is not held twice.
 */
export function heldById(s: Snapshot, ids: ReadonlySet<string>): Map<string, CampaignRow["permissions"]> {
  const people = new Set(s.people.map((p) => p.key));
  const held = new Map<string, CampaignRow["permissions"]>();
  for (const row of s.rows)
    if (ids.has(row.rowId) && people.has(row.person) && row.removedAt === undefined)
      held.set(row.rowId, row.granted);
  return held;
}
