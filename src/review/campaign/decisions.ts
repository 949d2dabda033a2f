/**
 * Reviewers' decisions checked and merged against the campaign (docs/audits.md, "Deciding"):
 * every row known, a reviewer deciding only rows assigned to them, a `change` only to fewer of
 * the permissions the row holds, nothing decided twice in conflict. A reviewer who decides a row
 * again replaces their own earlier decision (the later `decidedAt` wins); two reviewers deciding
 * one row differently is a conflict for the person running the campaign to settle. Pure.
 */
import type { Problem } from "../../errors.js";
import type { AssignedRow, Campaign, Decision } from "./types.js";

/** Decisions read from one file, where each came from (line for CSV, index for JSON). */
export interface DecisionsInput {
  file: string;
  decisions: Array<Decision & { line?: number; field?: string }>;
}

export interface Merged {
  decisions: Decision[];
  problems: Problem[];
  /** Rows a reviewer decided again (their later decision kept). */
  replaced: number;
}

const sameDecision = (a: Decision, b: Decision): boolean =>
  a.decision === b.decision && (a.permissions ?? []).join(" ") === (b.permissions ?? []).join(" ");

function checkOne(
  d: DecisionsInput["decisions"][number],
  row: AssignedRow | undefined,
  file: string,
): Problem | undefined {
  const where = { file, ...(d.line !== undefined ? { line: d.line } : {}), field: d.field ?? d.rowId };
  if (row === undefined)
    return { ...where, rule: "unknown-row", message: `row ${d.rowId} is not in this campaign's snapshot` };
  if (!row.reviewers.includes(d.reviewer))
    return {
      ...where,
      rule: "not-assigned",
      message: `${d.reviewer} is not assigned ${d.rowId}${row.reviewers.length > 0 ? ` (its reviewers: ${row.reviewers.join(", ")})` : " (nobody is: assign it in review.reviewers and open the campaign again)"}`,
    };
  if (d.decision !== "change") return undefined;
  const held = new Set<string>(row.permissions);
  const to = d.permissions ?? [];
  const extra = to.filter((p) => !held.has(p));
  if (to.length === 0 || extra.length > 0 || to.length >= held.size)
    return {
      ...where,
      rule: "bad-change",
      message: `change ${d.rowId} to ${to.join(" ") || "nothing"}: a change keeps some of the permissions it holds (${row.permissions.join(" ")}), never adds one; to take them all away, revoke`,
    };
  return undefined;
}

/** Merges `inputs` into `existing` (a decisions file merged before), in order. */
export function mergeDecisions(
  campaign: Campaign,
  existing: readonly Decision[],
  inputs: readonly DecisionsInput[],
): Merged {
  const rows = new Map(campaign.rows.map((r) => [r.rowId, r] as const));
  const byRow = new Map<string, Decision>(existing.map((d) => [d.rowId, d] as const));
  const problems: Problem[] = [];
  let replaced = 0;
  for (const input of inputs)
    for (const d of input.decisions) {
      const problem = checkOne(d, rows.get(d.rowId), input.file);
      if (problem !== undefined) {
        problems.push(problem);
        continue;
      }
      const { line: _line, field: _field, ...decision } = d;
      const before = byRow.get(d.rowId);
      if (before === undefined) byRow.set(d.rowId, decision);
      else if (before.reviewer === d.reviewer) {
        if (sameDecision(before, d) && before.comment === d.comment) continue;
        if (d.decidedAt >= before.decidedAt) {
          byRow.set(d.rowId, decision);
          replaced++;
        }
      } else if (!sameDecision(before, d))
        problems.push({
          file: input.file,
          ...(d.line !== undefined ? { line: d.line } : {}),
          field: d.field ?? d.rowId,
          rule: "conflict",
          message: `${d.reviewer} decides ${d.rowId} ${describe(d)}, ${before.reviewer} decided ${describe(before)}${before.from !== undefined ? ` (in ${before.from})` : ""}: agree on one and merge it again`,
        });
    }
  const decisions = [...byRow.values()].sort((a, b) => (a.rowId < b.rowId ? -1 : a.rowId > b.rowId ? 1 : 0));
  return { decisions, problems, replaced };
}

export const describe = (d: Pick<Decision, "decision" | "permissions">): string =>
  d.decision === "change" ? `change to ${(d.permissions ?? []).join(" ")}` : d.decision;

export interface Coverage {
  rows: number;
  decided: number;
  unassigned: number;
  byDecision: Record<"keep" | "revoke" | "change", number>;
  reviewers: Array<{ email: string; assigned: number; decided: number; pending: number }>;
}

/** Rows decided over total, and per reviewer: rows assigned to them, decided (by them), pending. */
export function coverage(campaign: Campaign, decisions: readonly Decision[]): Coverage {
  const byRow = new Map(decisions.map((d) => [d.rowId, d] as const));
  const byDecision = { keep: 0, revoke: 0, change: 0 };
  for (const d of decisions) byDecision[d.decision]++;
  const reviewers = campaign.reviewers.map(({ email, rows }) => {
    const decided = campaign.rows.filter(
      (r) => r.reviewers.includes(email) && byRow.get(r.rowId)?.reviewer === email,
    ).length;
    const pending = campaign.rows.filter((r) => r.reviewers.includes(email) && !byRow.has(r.rowId)).length;
    return { email, assigned: rows, decided, pending };
  });
  return {
    rows: campaign.rows.length,
    decided: campaign.rows.filter((r) => byRow.has(r.rowId)).length,
    unassigned: campaign.unassigned.length,
    byDecision,
    reviewers,
  };
}
