/**
 * The access review as CSV (docs/audits.md, "Access review"): one row per person and workspace
 * they reach (a person who reaches none has one row with an empty workspace, so every person of
 * the organization is there to sample), and a second CSV of organization permissions. With
 * `--since`, a `change` column says what changed on the row; access lost and people gone get rows
 * of their own. With `targets:`, the combined CSV starts with an `organization` column.
 */
import { csvLine } from "../../desired/csv-cell.js";
import { changeInterval } from "../../review/last-change.js";
import type { Review, ReviewChange, ReviewPerson, WorkspaceAccess } from "../../review/types.js";

export const ACCESS_COLUMNS = [
  "person",
  "email",
  "display_name",
  "status",
  "login",
  "agreement",
  "workspace",
  "workspace_name",
  "permissions",
  "manage",
  "reason",
  "filter",
  "filter_source",
  "unfiltered",
  "managed",
  "last_change",
  "change",
  "granted_permissions",
  "reaches",
  "source_status",
  "gone_since",
  "row_id",
] as const;

/**
 * The last columns of every CSV row: the snapshot it was rendered from (docs/audits.md "CSV"),
 * kept by any spreadsheet that keeps rows.
 */
export const SNAPSHOT_COLUMNS = [
  "snapshot_organization",
  "snapshot_listed_at",
  "snapshot_usersync_version",
  "snapshot_digest",
] as const;

export function snapshotCells(review: Review): string[] {
  const s = review.snapshot;
  return [s.organization, s.generatedAt, s.usersyncVersion, s.digest];
}

export const ORGANIZATION_COLUMNS = [
  "assignee_type",
  "assignee",
  "email",
  "permissions",
  "privileged",
  "people",
  "managed",
] as const;

const yesNo = (b: boolean | undefined): string => (b === undefined ? "" : b ? "yes" : "no");

/** `yes` when the desired state gives every reason, `no` when none, `partly` in between; empty when not compared. */
function managedCell(a: WorkspaceAccess): string {
  const flags = a.reasons.map((r) => r.managed);
  if (flags.some((f) => f === undefined)) return "";
  if (flags.every((f) => f === true)) return "yes";
  return flags.some((f) => f === true) ? "partly" : "no";
}

const changeText = (c: ReviewChange): string => {
  const arrow =
    c.before !== undefined && c.after !== undefined
      ? ` ${c.before.join("+") || "-"} -> ${c.after.join("+") || "-"}`
      : "";
  const by = c.removedAt !== undefined ? ` (removed by usersync ${c.removedAt}, run ${c.runId})` : "";
  const gone = c.goneSince !== undefined ? ` (left the source ${c.goneSince})` : "";
  return `${c.kind}${arrow}${by}${gone}`;
};

function personCells(p: ReviewPerson): string[] {
  return [p.id ?? p.email ?? p.key, p.email ?? "", p.displayName ?? "", p.status, p.login, p.agreement];
}

function accessCells(a: WorkspaceAccess): string[] {
  return [
    a.workspace,
    a.workspaceName ?? "",
    a.permissions.join(" "),
    yesNo(a.manage),
    a.reasons.map((r) => `${r.text}: ${r.permissions.join(" ")}`).join(" | "),
    a.filters.map((f) => f.maql).join(" AND "),
    a.filters
      .map(
        (f) =>
          `${f.via === "own" ? "own" : `group ${f.groupChain.join(" -> ")}`}${f.fromParent ? ` on ${f.workspace}` : ""} (${f.managed ? "usersync" : "hand-made"})`,
      )
      .join(" | "),
    yesNo(a.unfiltered),
    managedCell(a),
  ];
}

export interface CsvOptions {
  /** Adds a first `organization` column (the combined CSV of many targets). */
  organization?: boolean;
  /** Leaves the header out (the combined CSV writes it once). */
  header?: boolean;
}

/** The access cells of a row without access: a person who reaches nothing, or access lost since. */
const NO_ACCESS: readonly string[] = Array<string>(9).fill("");

export function renderReviewCsv(review: Review, options: CsvOptions = {}): string {
  return [...reviewCsvChunks(review, options)].join("");
}

/** The access CSV in pieces (a person's rows each), for writing a large review without one string. */
// eslint-disable-next-line max-lines-per-function -- one pass over the people, then the people gone
export function* reviewCsvChunks(review: Review, options: CsvOptions = {}): Generator<string> {
  const org = options.organization === true ? [review.snapshot.organization] : [];
  const lines: string[] = [];
  if (options.header !== false)
    lines.push(
      csvLine([...(options.organization ? ["organization"] : []), ...ACCESS_COLUMNS, ...SNAPSHOT_COLUMNS]),
    );
  const snap = snapshotCells(review);
  /** granted_permissions, reaches, source_status, gone_since, row_id and the snapshot's cells. */
  const tail = (p: ReviewPerson | undefined, a: WorkspaceAccess | undefined, rowId: string): string[] => [
    a?.granted.join(" ") ?? "",
    a === undefined ? "" : a.reaches ? "yes" : "no (add-on without VIEW)",
    p?.sourceStatus ?? "",
    p?.goneSince ?? "",
    rowId,
    ...snap,
  ];
  // Access lost and people gone changed between the previous review and this one.
  const lostWhen = review.changes ? (changeInterval(review.changes.since, review.snapshot) ?? "") : "";
  const changesOf = new Map<string, ReviewChange[]>();
  for (const c of review.changes?.changes ?? []) {
    const k = `${c.person}\u0000${c.workspace ?? ""}`;
    (changesOf.get(k) ?? changesOf.set(k, []).get(k)!).push(c);
  }
  const changeCell = (person: string, workspace: string): string =>
    (changesOf.get(`${person}\u0000${workspace}`) ?? []).map(changeText).join("; ");
  for (const p of review.people) {
    const personChange = changeCell(p.key, "");
    if (p.access.length === 0)
      lines.push(
        csvLine([
          ...org,
          ...personCells(p),
          ...NO_ACCESS,
          p.lastChange ?? "",
          personChange,
          ...tail(p, undefined, ""),
        ]),
      );
    for (const a of p.access) {
      const change = [personChange, changeCell(p.key, a.workspace)].filter((x) => x !== "").join("; ");
      lines.push(
        csvLine([
          ...org,
          ...personCells(p),
          ...accessCells(a),
          a.lastChange ?? "",
          change,
          ...tail(p, a, `${p.key}|${a.workspace}`),
        ]),
      );
    }
    if (review.changes) {
      const reached = new Set(p.access.map((a) => a.workspace));
      for (const c of review.changes.changes)
        if (
          c.person === p.key &&
          c.kind === "accessLost" &&
          c.workspace !== undefined &&
          !reached.has(c.workspace)
        )
          lines.push(
            csvLine([
              ...org,
              ...personCells(p),
              c.workspace,
              ...NO_ACCESS.slice(1),
              c.removedAt ?? lostWhen,
              changeText(c),
              ...tail(p, undefined, `${p.key}|${c.workspace}`),
            ]),
          );
    }
    yield lines.splice(0).join("");
  }
  // People gone since the previous review: a row each (and one per workspace they lost).
  const here = new Set(review.people.map((p) => p.key));
  for (const c of review.changes?.changes ?? []) {
    if (here.has(c.person) || (c.kind !== "personWent" && c.kind !== "accessLost")) continue;
    const id = c.person.replace(/^login:/, "");
    lines.push(
      csvLine([
        ...org,
        id,
        c.email ?? "",
        "",
        "gone",
        "",
        "",
        c.workspace ?? "",
        ...NO_ACCESS.slice(1),
        c.removedAt ?? lostWhen,
        changeText(c),
        ...tail(undefined, undefined, c.workspace !== undefined ? `${c.person}|${c.workspace}` : ""),
      ]),
    );
  }
  yield lines.join("");
}

export function renderOrganizationCsv(review: Review, options: CsvOptions = {}): string {
  const org = options.organization === true ? [review.snapshot.organization] : [];
  const lines: string[] = [];
  if (options.header !== false)
    lines.push(
      csvLine([
        ...(options.organization ? ["organization"] : []),
        ...ORGANIZATION_COLUMNS,
        ...SNAPSHOT_COLUMNS,
      ]),
    );
  for (const r of review.organizationPermissions)
    lines.push(
      csvLine([
        ...org,
        r.assignee.type,
        r.assignee.id,
        r.email ?? "",
        r.permissions.join(" "),
        yesNo(r.privileged),
        r.people !== undefined ? String(r.people) : "",
        yesNo(r.managed),
        ...snapshotCells(review),
      ]),
    );
  return lines.join("");
}

/** Where the organization-permissions CSV goes beside the access CSV: `review.csv` -> `review-organization.csv`. */
export function organizationCsvPath(accessPath: string): string {
  return /\.csv$/i.test(accessPath)
    ? accessPath.replace(/\.csv$/i, "-organization.csv")
    : `${accessPath}-organization.csv`;
}
