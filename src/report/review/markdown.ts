/**
 * The access review as Markdown, for a CI job summary or a ticket: the summary first, then the
 * findings, the changes since the previous review, organization permissions, and the access table
 * (capped: a job summary has a size limit; the CSV and JSON carry every row).
 */
import type { Review, ReviewPerson, WorkspaceAccess } from "../../review/types.js";

/** Access rows shown before the table says "and N more". */
export const MARKDOWN_ACCESS_ROWS = 500;
export const MARKDOWN_FINDINGS = 200;
export const MARKDOWN_CHANGES = 200;

const cell = (s: string): string => s.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
const row = (cells: readonly string[]): string => `| ${cells.map(cell).join(" | ")} |`;
const table = (head: readonly string[], rows: readonly string[][]): string[] => [
  row(head),
  `|${head.map(() => "---").join("|")}|`,
  ...rows.map(row),
];
const counts = (o: Partial<Record<string, number>>): string =>
  Object.entries(o)
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ") || "none";

function managed(a: WorkspaceAccess): string {
  const flags = a.reasons.map((r) => r.managed);
  if (flags.some((f) => f === undefined)) return "";
  return flags.every((f) => f) ? "yes" : flags.some((f) => f) ? "partly" : "no";
}

// eslint-disable-next-line max-lines-per-function -- the sections in reading order, each a few lines
export function renderReviewMarkdown(review: Review): string {
  const { snapshot: s, summary: m, evidence: e } = review;
  const out: string[] = [
    `# Access review: ${s.organization}`,
    "",
    `Taken ${s.generatedAt} from ${s.baseUrl} by usersync ${s.usersyncVersion}; digest \`${s.digest}\`. Read-only: nothing was changed.`,
    "",
    "## Summary",
    "",
    ...table(
      ["", ""],
      [
        ["People", `${m.people} (${counts(m.byStatus)})`],
        [
          "Desired state",
          e.desiredCompared
            ? `${counts(m.byAgreement)} (source ${e.desiredSource ?? "?"}, mode ${e.mode ?? "?"})`
            : "not compared (no source configured)",
        ],
        ["Workspaces", String(m.workspaces)],
        ["Groups", String(m.groups)],
        ["Access rows (person x workspace)", String(m.accessRows)],
        ["Privileged people (organization or workspace MANAGE)", String(m.privilegedPeople)],
        [
          "Data filters",
          `${m.filters}; ${m.unfilteredRows} access row(s) with no filter where others have one`,
        ],
        ["Findings", `${m.findings}${m.findings > 0 ? ` (${counts(m.findingsByKind)})` : ""}`],
        ...(review.changes
          ? [
              [
                "Changes since " + review.changes.since.generatedAt,
                `${review.changes.changes.length} (${counts(review.changes.counts)})`,
              ],
            ]
          : []),
        ["Requests used", `${e.requests}${e.permissionsVia ? ` (grants read ${e.permissionsVia})` : ""}`],
      ],
    ),
    ...e.notes.map((n) => `\n> ${n}`),
    "",
    "## Findings",
    "",
  ];
  if (review.findings.length === 0) out.push("None.");
  else {
    out.push(
      ...table(
        ["severity", "finding", "person", "workspace", "detail"],
        review.findings
          .slice(0, MARKDOWN_FINDINGS)
          .map((f) => [f.severity, f.kind, f.email ?? f.person, f.workspace ?? "", f.detail]),
      ),
    );
    if (review.findings.length > MARKDOWN_FINDINGS)
      out.push("", `... and ${review.findings.length - MARKDOWN_FINDINGS} more (see the CSV or JSON).`);
  }
  if (review.changes) {
    out.push(
      "",
      `## Changes since ${review.changes.since.generatedAt} (\`${review.changes.since.digest}\`)`,
      "",
    );
    const list = review.changes.changes;
    if (list.length === 0) out.push("None.");
    else {
      out.push(
        ...table(
          ["change", "person", "workspace", "before", "after"],
          list
            .slice(0, MARKDOWN_CHANGES)
            .map((c) => [
              c.kind,
              c.email ?? c.person,
              c.workspace ?? "",
              (c.before ?? []).join(" "),
              c.removedAt !== undefined
                ? `removed by usersync ${c.removedAt}, run ${c.runId}${c.goneSince !== undefined ? `; left the source ${c.goneSince}` : ""}`
                : (c.after ?? []).join(" "),
            ]),
        ),
      );
      if (list.length > MARKDOWN_CHANGES)
        out.push("", `... and ${list.length - MARKDOWN_CHANGES} more (see the CSV or JSON).`);
    }
  }
  out.push("", "## Organization permissions", "");
  if (review.organizationPermissions.length === 0) out.push("None listed.");
  else
    out.push(
      ...table(
        ["holder", "permissions", "privileged", "people"],
        review.organizationPermissions.map((r) => [
          `${r.assignee.type} ${r.assignee.id}${r.email ? ` (${r.email})` : ""}`,
          r.permissions.join(" "),
          r.privileged ? "**yes**" : "no",
          r.people !== undefined ? String(r.people) : "1",
        ]),
      ),
    );
  out.push("", "## Access", "");
  const rows: string[][] = [];
  // Rows are dated only by a chain of reviews (--since): the column is there when one was given.
  const dated = review.changes !== undefined;
  const personCells = (p: ReviewPerson): string[] => [p.email ?? p.id ?? p.key, p.status, p.agreement];
  for (const p of review.people)
    for (const a of p.access)
      rows.push([
        ...personCells(p),
        a.workspace,
        `${a.permissions.join(" ")}${a.manage ? " (privileged)" : ""}`,
        a.reasons.map((r) => r.text).join("; "),
        a.filters.length > 0
          ? a.filters.map((f) => `${f.maql}${f.managed ? "" : " (hand-made)"}`).join(" AND ")
          : a.unfiltered
            ? "**none (others filtered)**"
            : "",
        managed(a),
        ...(dated ? [a.lastChange ?? ""] : []),
      ]);
  out.push(
    ...table(
      [
        ...["person", "status", "agreement", "workspace", "permissions", "reason", "filter", "managed"],
        ...(dated ? ["last change"] : []),
      ],
      rows.slice(0, MARKDOWN_ACCESS_ROWS),
    ),
  );
  if (rows.length > MARKDOWN_ACCESS_ROWS)
    out.push("", `... and ${rows.length - MARKDOWN_ACCESS_ROWS} more rows (see the CSV or JSON).`);
  const none = review.people.filter((p) => p.access.length === 0).length;
  if (none > 0)
    out.push("", `${none} people reach no workspace (listed in the CSV with an empty workspace).`);
  return `${out.join("\n")}\n`;
}
