/**
 * Data filters in an export (docs/data-filters.md): the filters usersync keeps, written back in
 * the desired state's forms, so the file read back plans no filter change. A filter in the label
 * form becomes `{label, values}` (CSV: `WORKSPACE=LABEL:A+B`); raw MAQL stays `{maql}` in YAML and
 * cannot be said in a CSV cell (the export warns). Filters made by hand are never exported as
 * desired state: they are not usersync's to keep. `export --hand-made-filters` lists them at the
 * end of the YAML as a comment, marked as not usersync's, so the record is whole and reading the
 * file back still plans nothing.
 */
import { managedFilterId, meaningOf, type ActualDataFilters } from "../data-filters.js";
import { assigneeKey, compareIds, type Assignee } from "../permissions.js";

export interface ExportedFilter {
  workspace: string;
  maql: string;
}

export function filtersByAssignee(
  filters: ActualDataFilters | undefined,
  inScope: (workspace: string) => boolean = () => true,
): (a: Assignee) => { dataFilters?: ExportedFilter[] } {
  const by = new Map<string, ExportedFilter[]>();
  for (const f of filters?.filters ?? []) {
    if (!f.managed || f.id !== managedFilterId(f.workspace, f.assignee) || !inScope(f.workspace)) continue;
    const key = assigneeKey(f.assignee);
    (by.get(key) ?? by.set(key, []).get(key)!).push({ workspace: f.workspace, maql: f.maql });
  }
  for (const list of by.values()) list.sort((a, b) => compareIds(a.workspace, b.workspace));
  return (a) => {
    const list = by.get(assigneeKey(a));
    return list ? { dataFilters: list } : {};
  };
}

/** YAML: `{sales: {label: region, values: [EMEA]}, finance: {maql: ...}}`. */
export function yamlFilters(
  list: readonly ExportedFilter[] | undefined,
): Record<string, unknown> | undefined {
  if (list === undefined) return undefined;
  return Object.fromEntries(
    list.map((f) => {
      const m = meaningOf(f.maql);
      return [f.workspace, "label" in m ? { label: m.label, values: m.values } : { maql: f.maql }];
    }),
  );
}

/** CSV: `sales=region:EMEA+APAC`; a filter the cell cannot say is left out and counted. */
export function csvFilters(list: readonly ExportedFilter[] | undefined, skipped: { count: number }): string {
  const cells: string[] = [];
  for (const f of list ?? []) {
    const m = meaningOf(f.maql);
    if ("label" in m && m.values.every((v) => !/[;+=]/.test(v)))
      cells.push(`${f.workspace}=${m.label}:${m.values.join("+")}`);
    else skipped.count += 1;
  }
  return cells.join("; ");
}

/**
 * The hand-made filters (no usersync tag or id) as the lines of a YAML comment: one per filter,
 * workspace, holder, id, title and MAQL, the text JSON-quoted so no name or MAQL can end the
 * comment; undefined when there are none.
 */
export function handMadeFilterComment(filters: ActualDataFilters | undefined): string | undefined {
  const hand = (filters?.filters ?? []).filter((f) => !f.managed);
  if (hand.length === 0) return undefined;
  hand.sort(
    (a, b) =>
      compareIds(a.workspace, b.workspace) ||
      compareIds(assigneeKey(a.assignee), assigneeKey(b.assignee)) ||
      compareIds(a.id, b.id),
  );
  const q = (s: string): string => JSON.stringify(s);
  return [
    ` Hand-made data filters: ${hand.length}, made outside usersync (no usersync tag or id). Not part`,
    " of the desired state above: usersync never changes or deletes them, and the service applies",
    " them together with usersync's. Listed by usersync export --hand-made-filters, for the record.",
    ...hand.map(
      (f) =>
        `   workspace ${q(f.workspace)}, ${f.assignee.type === "userGroup" ? "group" : "user"} ${q(f.assignee.id)}: id ${q(f.id)}` +
        `${f.title !== undefined ? `, title ${q(f.title)}` : ""}, MAQL ${q(f.maql)}`,
    ),
  ].join("\n");
}
