/**
 * Who reviews each row (docs/audits.md, "The campaign"): the most specific rule that names
 * someone wins. A workspace row goes to the reviewers of its workspace (`review.reviewers.
 * workspaces`, globs allowed) and of every group on its reasons' chains (`groups`), together;
 * an organization row to the reviewers of the groups it is held through. A row neither names goes
 * to its organization's reviewers (`organizations`), then to `default`; a row still without a
 * reviewer is listed in `unassigned`, never dropped.
 */
import { workspaceMatcher } from "../../plan/safety.js";
import type { AssignedRow, CampaignRow } from "./types.js";

export interface ReviewerRules {
  workspaces: Readonly<Record<string, readonly string[]>>;
  groups: Readonly<Record<string, readonly string[]>>;
  organizations: Readonly<Record<string, readonly string[]>>;
  default?: readonly string[] | undefined;
}

const sorted = (s: Iterable<string>): string[] => [...new Set(s)].sort();

/** The groups a row is reached through: every group on every reason's chain (the holder included). */
export function groupsOfRow(row: CampaignRow): string[] {
  const out = new Set<string>();
  for (const r of row.reasons) {
    for (const g of r.groupChain) out.add(g);
    if (r.holder.startsWith("userGroup/")) out.add(r.holder.slice("userGroup/".length));
  }
  return [...out];
}

/**
 * Each row with its reviewers. The rows are extended in place (`reviewers` and `assignedBy` added
 * last, as a copy would have them) and rows of equal reviewers share one list, so a large
 * campaign's rows are not held twice (docs/benchmarks.md figure 16).
 */
export function assignRows(
  rows: readonly CampaignRow[],
  rules: ReviewerRules,
  organization: string,
): { rows: AssignedRow[]; unassigned: string[] } {
  const byWorkspace = Object.entries(rules.workspaces).map(
    ([glob, emails]) => [workspaceMatcher([glob]), emails] as const,
  );
  const lists = new Map<string, string[]>();
  const list = (emails: Iterable<string>): string[] => {
    const l = sorted(emails);
    const k = l.join("\n");
    const had = lists.get(k);
    if (had !== undefined) return had;
    lists.set(k, l);
    return l;
  };
  const org = rules.organizations[organization];
  const assign = (row: CampaignRow): Pick<AssignedRow, "reviewers" | "assignedBy"> => {
    const specific = new Set<string>();
    let by: AssignedRow["assignedBy"] = "none";
    if (row.workspace !== undefined)
      for (const [matches, emails] of byWorkspace)
        if (matches(row.workspace)) {
          emails.forEach((e) => specific.add(e));
          by = "workspace";
        }
    for (const g of groupsOfRow(row)) {
      const emails = rules.groups[g];
      if (emails === undefined) continue;
      emails.forEach((e) => specific.add(e));
      if (by === "none") by = "group";
    }
    if (specific.size > 0) return { reviewers: list(specific), assignedBy: by };
    if (org !== undefined && org.length > 0) return { reviewers: list(org), assignedBy: "organization" };
    if (rules.default !== undefined && rules.default.length > 0)
      return { reviewers: list(rules.default), assignedBy: "default" };
    return { reviewers: list([]), assignedBy: "none" };
  };
  const assigned = rows.map((row) => Object.assign(row, assign(row)));
  return { rows: assigned, unassigned: assigned.filter((r) => r.reviewers.length === 0).map((r) => r.rowId) };
}

/** Every reviewer and how many rows are theirs, by e-mail. */
export function reviewerCounts(rows: readonly AssignedRow[]): Array<{ email: string; rows: number }> {
  const counts = new Map<string, number>();
  for (const r of rows) for (const e of r.reviewers) counts.set(e, (counts.get(e) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([email, rows]) => ({ email, rows }));
}
