/**
 * Data filters in a plan, as a person reads them (docs/data-filters.md): each step's change as
 * one field line, the summary line, and the guard over widenings, which every format shows in a
 * section of its own.
 */
import { assigneeKey } from "../permissions.js";
import type { DataFilterStep, Plan, Step } from "../plan/types.js";
import { nounOf } from "../plan/kinds.js";

export const isFilterStep = (s: Step): s is DataFilterStep => nounOf(s.kind) === "dataFilter";

/** `dataFilter:sales/userGroup/sales` in words. */
export function filterKeyInWords(id: string, who: (assigneeKey: string) => string): string {
  const at = id.indexOf("/");
  return `data filter of ${who(id.slice(at + 1))} on ${id.slice(0, at)}`;
}

/** One line per step: the assignee, the MAQL before and after. */
export function filterFields(
  s: DataFilterStep,
  who: (assigneeKey: string) => string,
): Array<{ field: string; before?: string; after: string }> {
  const field = who(assigneeKey(s.assignee));
  if (s.kind === "createDataFilter") return [{ field, after: s.after.maql }];
  if (s.kind === "updateDataFilter") return [{ field, before: s.before.maql, after: s.after.maql }];
  return [{ field, before: s.before.maql, after: "(none)" }];
}

export const FILTER_HELD_NOTE =
  "held back: a widening over dataFilters.maxWidenings (use --allow-filter-widenings)";

/** The steps that widen (held back or not), for the section every format shows. */
type Widening = Exclude<DataFilterStep, { kind: "createDataFilter" }>;
export const wideningSteps = (plan: Plan): Widening[] =>
  plan.steps.filter((s): s is Widening => isFilterStep(s) && s.kind !== "createDataFilter" && s.widening);

/** `Data filters  3 to create, 1 to narrow, 1 widening` for the summary. */
export function filterSummary(plan: Plan): string | undefined {
  const steps = plan.steps.filter(isFilterStep);
  if (steps.length === 0) return undefined;
  const n = (k: DataFilterStep["kind"]): number => steps.filter((s) => s.kind === k).length;
  const widen = wideningSteps(plan).length;
  const parts = [
    n("createDataFilter") > 0 ? `${n("createDataFilter")} to create` : "",
    n("updateDataFilter") > 0 ? `${n("updateDataFilter")} to change` : "",
    n("deleteDataFilter") > 0 ? `${n("deleteDataFilter")} to remove` : "",
    widen > 0 ? `${widen} widening${widen === 1 ? "" : "s"} (see below)` : "",
  ].filter(Boolean);
  return parts.join(", ");
}

/** The guard line: `Filter guard  1 widening, 0 allowed (4 filters managed): every widening is held back ...`. */
export function filterGuardLine(plan: Plan): string | undefined {
  const g = plan.dataFilterGuard;
  if (!g) return undefined;
  const wanted = `${g.wanted} widening${g.wanted === 1 ? "" : "s"}, ${g.limit} allowed (${g.managedFilters} filter${g.managedFilters === 1 ? "" : "s"} managed)`;
  if (g.wanted <= g.limit) return `${wanted}: within the limit`;
  return `${wanted}: every widening is held back. Allow them for one run with --allow-filter-widenings ${g.wanted}, or raise dataFilters.maxWidenings`;
}

/** The widenings section: one line each, in every format. */
export function wideningLines(plan: Plan, who: (assigneeKey: string) => string): string[] {
  return wideningSteps(plan).map((s) => {
    const what = s.kind === "deleteDataFilter" ? "removed" : "widened";
    const held = s.status === "heldBack" ? " (held back)" : "";
    return `${who(assigneeKey(s.assignee))} on ${s.workspace}: ${what} while access remains${held}: ${s.before.maql}${s.kind === "updateDataFilter" ? ` → ${s.after.maql}` : ""}`;
  });
}

/** The widenings as a section of their own (text and Markdown list it beside the notices). */
export function wideningSections(
  plan: Plan,
  who: (assigneeKey: string) => string,
): Array<{ title: string; notices: Array<{ target: string; message: string }> }> {
  const list = wideningSteps(plan);
  if (list.length === 0) return [];
  const notices = list.map((s, i) => ({ target: s.target, message: wideningLines(plan, who)[i] ?? "" }));
  return [{ title: "Widenings (data filters removed or widened while access remains)", notices }];
}

/** "3 data filter changes (2 to create, 1 to change)", or the same done ("2 created"). */
export function filterChangesPhrase(
  f: { create: number; update: number; delete: number } | undefined,
  tense: "toDo" | "done",
): string {
  if (!f) return "";
  const total = f.create + f.update + f.delete;
  if (total === 0) return "";
  const words =
    tense === "toDo" ? ["to create", "to change", "to remove"] : ["created", "changed", "removed"];
  const parts = [f.create, f.update, f.delete].flatMap((n, i) =>
    n > 0 ? [`${n.toLocaleString("en-US")} ${words[i]}`] : [],
  );
  return `${total.toLocaleString("en-US")} data filter change${total === 1 ? "" : "s"} (${parts.join(", ")})`;
}
