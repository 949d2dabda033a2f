/**
 * The review snapshot (DESIGN section 12 "Evidence", docs/audits.md "The snapshot"): what one
 * listing of an organization becomes, saved as JSON. Every format (CSV, Markdown, HTML, the JSON
 * itself) renders from a snapshot, `--since` compares two, `review verify` recomputes its digest,
 * and a certification campaign (issue 47) decides on its rows by `rowId`.
 *
 * Normalised so it stays small at any size: a row names its reasons and filters by their index
 * in `reasonSets` and `filterSets` (the lists people of one group set share are written once).
 *
 * Stability: fields are only ever added; `formatVersion` changes when one changes meaning.
 *
 * Row ids (stable from snapshot to snapshot of one organization, so a decision, a change or a
 * campaign row can name one):
 * - a person's key `personKey` is the mapping's userId (`jane.doe`), or `login:<email in lower
 *   case>` for a built-in login no mapping points at (userIds never hold `:` or `|`);
 * - a person x workspace row is `<personKey>|<workspaceId>`;
 * - a person's organization-level row (their organization permissions) is
 *   `<personKey>|organization`.
 * Workspace ids never hold `|`, so the last `|` splits a row id into person and workspace.
 */
import type { OrganizationPermission, WorkspacePermission } from "../permissions.js";
import type {
  AccessReason,
  EffectiveFilter,
  OrganizationPermissionRow,
  OrganizationReason,
  ReviewChange,
  ReviewEvidence,
  ReviewPerson,
  ReviewGroup,
  ReviewSummary,
  ReviewWorkspace,
  FindingKind,
} from "./types.js";

export const SNAPSHOT_FORMAT_VERSION = 2;
export const SNAPSHOT_KIND = "usersync-access-review";

/** The row id of an organization-level row's workspace part. */
export const ORGANIZATION_ROW = "organization";

/** A person's key in a snapshot: the mapping's userId, or `login:<email>` for a login with no mapping. */
export function personKeyOf(p: { id?: string | undefined; email?: string | undefined }): string {
  return p.id !== undefined ? p.id : `login:${(p.email ?? "").toLowerCase()}`;
}

/**
 * `<personKey>|<workspaceId>`, or `<personKey>|organization` for the organization-level row. By
 * `join`, which makes one flat string: `+` makes a rope that V8 flattens into a second string
 * the first time it is written, and a review has a million of them (docs/benchmarks.md figure 16).
 */
export function rowIdOf(personKey: string, workspace: string | undefined): string {
  return [personKey, workspace ?? ORGANIZATION_ROW].join("|");
}

/** The person and workspace a row id names (the workspace is undefined for the organization row). */
export function splitRowId(rowId: string): { person: string; workspace: string | undefined } {
  const at = rowId.lastIndexOf("|");
  const workspace = rowId.slice(at + 1);
  return { person: rowId.slice(0, at), workspace: workspace === ORGANIZATION_ROW ? undefined : workspace };
}

/** What names a snapshot: every file rendered from it carries these (the CSV as a header line). */
export interface SnapshotHeader {
  kind: typeof SNAPSHOT_KIND;
  formatVersion: typeof SNAPSHOT_FORMAT_VERSION;
  /** The organization: the target's name with `targets:`, else the service's host. */
  organization: string;
  /** The organization's id in the service (its profile's organizationId), when it was read. */
  organizationId?: string;
  /** The service's URL the listing read. */
  baseUrl: string;
  /** When the listing was taken, ISO 8601 UTC. */
  listedAt: string;
  usersyncVersion: string;
  /**
   * `sha256:<hex>`: SHA-256 over the RFC 8785 canonical JSON (JCS) of the whole snapshot with
   * `header.digest` and `header.signature` removed (docs/audits.md "Recomputing the digest").
   */
  digest: string;
  /**
   * A JWS (compact, detached payload: `<protected>..<signature>`) over the digest string, when the
   * snapshot was signed (`review.signingKey`); verified with the public key.
   */
  signature?: string;
}

/**
 * One person of the snapshot: the review's person (types.ts `ReviewPerson`, where each field is
 * described) without their access, which is in `rows` (organization permissions and reasons too).
 */
export type SnapshotPerson = Omit<ReviewPerson, "access" | "organizationPermissions" | "organizationReasons">;

/**
 * One person x workspace row (`scope: "workspace"`: the person reaches the workspace, or holds an
 * add-on there that reaches nothing, `reaches: false`), or a person's organization-level row
 * (`scope: "organization"`: only for a person holding an organization permission). A person who
 * holds nothing has no row; they are in `people`.
 */
export interface SnapshotRow {
  /** `<personKey>|<workspaceId>` or `<personKey>|organization`. */
  rowId: string;
  person: string;
  scope: "workspace" | "organization";
  /** The workspace (absent on the organization row). */
  workspace?: string;
  /** What the reasons grant, by name, sorted (workspace or organization permissions). */
  granted: Array<WorkspacePermission | OrganizationPermission>;
  /** What the person can do: `granted` with the service's implications (access-rules R5-R10), sorted. */
  effective: Array<WorkspacePermission | OrganizationPermission>;
  /** Whether the row reaches the workspace (false: an add-on such as CREATE_FILTER_VIEW without VIEW). */
  reaches: boolean;
  /** MANAGE here (workspace MANAGE, organization MANAGE on the organization row). */
  manage: boolean;
  /** Index into `reasonSets` (workspace rows) or `organizationReasonSets` (the organization row). */
  reasons: number;
  /** Index into `filterSets`; workspace rows only. */
  filters?: number;
  unfiltered?: boolean;
  /** Reached through organization MANAGE (every workspace), not a grant on it. */
  viaOrganization?: boolean;
  lastChange?: string;
  desired?: { permissions: string[]; filters: string[] };
  /** When the row's access was removed (a `lost` row kept for dating, see `removals`). */
  removedAt?: string;
}

/** A finding in a snapshot: on a row when it is about one, else on a person. */
export interface SnapshotFinding {
  kind: FindingKind;
  severity: "high" | "medium";
  person: string;
  rowId?: string;
  email?: string;
  workspace?: string;
  detail: string;
}

/** An access removed since the previous review, dated from the organization's journal. */
export interface SnapshotRemoval {
  rowId: string;
  person: string;
  workspace?: string;
  /** What was removed (permissions). */
  permissions: string[];
  /** When usersync removed it (the journal's entry), ISO 8601; absent when removed by someone else. */
  removedAt?: string;
  /** The run that removed it (the journal's run id). */
  runId?: string;
  /** For a leaver: when the source first showed them gone. */
  goneSince?: string;
}

export interface Snapshot {
  header: SnapshotHeader;
  summary: ReviewSummary;
  evidence: ReviewEvidence;
  /** Sorted by severity, kind, person, row. */
  findings: SnapshotFinding[];
  workspaces: ReviewWorkspace[];
  groups: ReviewGroup[];
  /** Sorted by key. */
  people: SnapshotPerson[];
  /** In the order of `people`; a person's organization row first, then their workspaces by id. */
  rows: SnapshotRow[];
  reasonSets: AccessReason[][];
  organizationReasonSets: OrganizationReason[][];
  filterSets: EffectiveFilter[][];
  organizationPermissions: OrganizationPermissionRow[];
  /** With `--since`. */
  changes?: {
    /** The previous snapshot's header. */
    since: SnapshotHeader;
    changes: Array<ReviewChange & { rowId?: string }>;
    counts: Partial<Record<ReviewChange["kind"], number>>;
  };
  removals?: SnapshotRemoval[];
}
