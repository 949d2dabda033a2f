/** Collects the problems of one read, so every reader reports all of them in one pass. */
import type { Problem } from "../errors.js";

export interface Where {
  file: string;
  line?: number;
  field?: string;
}

export class ProblemList {
  readonly items: Problem[] = [];

  error(where: Where, rule: string, message: string): void {
    this.items.push(problem(where, rule, message, "error"));
  }

  warn(where: Where, rule: string, message: string): void {
    this.items.push(problem(where, rule, message, "warning"));
  }

  get hasErrors(): boolean {
    return this.items.some(isError);
  }
}

function problem(where: Where, rule: string, message: string, severity: "error" | "warning"): Problem {
  const p: Problem = { file: where.file, rule, message, severity };
  if (where.line !== undefined) p.line = where.line;
  if (where.field !== undefined) p.field = where.field;
  return p;
}

export const isError = (p: Problem): boolean => p.severity !== "warning";

/** Problems in file order: by file, then line, then rule, so output is stable. */
export function sortProblems(problems: Problem[], files: readonly string[]): Problem[] {
  const rank = (f: string): number => {
    const i = files.indexOf(f);
    return i < 0 ? files.length : i;
  };
  return [...problems].sort(
    (a, b) =>
      rank(a.file) - rank(b.file) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.field ?? "").localeCompare(b.field ?? "") ||
      a.rule.localeCompare(b.rule),
  );
}
