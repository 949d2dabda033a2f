/**
 * The `dataFilters` field of users and groups (docs/data-filters.md): per workspace, a label and
 * its values (rendered to MAQL here) or raw `maql`. YAML: a mapping; CSV: one cell,
 * `sales-emea=region:EMEA+APAC; finance=cost_center:100`. A value that cannot be written as a
 * MAQL string literal is refused (exit 4), never sent.
 */
import { compareIds } from "../permissions.js";
import { MAX_MAQL, isLabelId, renderMaql, unsafeValue, valueSet } from "../data-filters.js";
import { isValidId } from "./ids.js";
import type { ProblemList, Where } from "./problems.js";
import type { DesiredDataFilter } from "./types.js";

export const CSV_DATA_FILTERS_FORM = "sales-emea=region:EMEA+APAC; finance=cost_center:100";

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const at = (where: Where, part: string): Where => ({ ...where, field: `${where.field ?? ""}${part}` });

/** `label/region` or `region` → `region`. */
const labelOf = (v: string): string => v.trim().replace(/^label\//, "");

class Reader {
  ok = true;
  constructor(readonly problems: ProblemList) {}
  error(where: Where, rule: string, message: string): void {
    this.problems.error(where, rule, message);
    this.ok = false;
  }

  /** A label-and-values filter, checked; undefined (reported) when it cannot be written safely. */
  labelFilter(
    workspace: string,
    label: unknown,
    values: unknown,
    where: Where,
  ): DesiredDataFilter | undefined {
    const id = typeof label === "string" ? labelOf(label) : "";
    if (!isLabelId(id)) {
      this.error(
        at(where, ".label"),
        "bad-label",
        `${JSON.stringify(label)} is not a label id (e.g. region, or label/region)`,
      );
      return undefined;
    }
    if (
      !Array.isArray(values) ||
      values.length === 0 ||
      !values.every((v) => typeof v === "string" || typeof v === "number")
    ) {
      this.error(
        at(where, ".values"),
        "bad-type",
        'must be a non-empty list of values, e.g. ["EMEA", "APAC"]',
      );
      return undefined;
    }
    const list = valueSet(values.map(String));
    let ok = true;
    for (const v of list) {
      const why = unsafeValue(v);
      if (why === undefined) continue;
      this.error(
        at(where, ".values"),
        "unsafe-filter-value",
        `${JSON.stringify(v)} ${why}: it cannot be written safely as a MAQL value; use raw maql, or fix the value`,
      );
      ok = false;
    }
    if (!ok) return undefined;
    return this.sized({ workspace, maql: renderMaql(id, list), label: id, values: list }, where);
  }

  rawFilter(workspace: string, maql: unknown, where: Where): DesiredDataFilter | undefined {
    if (typeof maql !== "string" || maql.trim() === "") {
      this.error(at(where, ".maql"), "bad-type", 'must be a MAQL condition, e.g. {label/region} = "EMEA"');
      return undefined;
    }
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(maql)) {
      this.error(
        at(where, ".maql"),
        "unsafe-filter-value",
        "holds a control character; write the condition in plain text",
      );
      return undefined;
    }
    return this.sized({ workspace, maql: maql.trim() }, where);
  }

  private sized(f: DesiredDataFilter, where: Where): DesiredDataFilter | undefined {
    if (f.maql.length <= MAX_MAQL) return f;
    this.error(
      where,
      "too-long",
      `the filter is ${f.maql.length} characters of MAQL; the service allows ${MAX_MAQL}`,
    );
    return undefined;
  }

  workspace(id: string, where: Where): boolean {
    if (isValidId(id)) return true;
    this.error(
      where,
      "bad-workspace-id",
      `"${id}" is not a valid workspace id (letters, digits, ".", "_", "-"; not starting with "."; at most 255)`,
    );
    return false;
  }
}

/** YAML: `{sales-emea: {label: region, values: [EMEA]}, finance: {maql: "..."}}`. */
function fromMapping(r: Reader, value: Record<string, unknown>, where: Where): DesiredDataFilter[] {
  const out: DesiredDataFilter[] = [];
  for (const [workspace, spec] of Object.entries(value)) {
    const w = at(where, `.${workspace}`);
    if (!r.workspace(workspace, w)) continue;
    if (!isRecord(spec)) {
      r.error(w, "bad-type", "must be {label: LABEL, values: [...]} or {maql: CONDITION}");
      continue;
    }
    const keys = Object.keys(spec);
    const unknown = keys.filter((k) => !["label", "values", "maql"].includes(k));
    for (const k of unknown)
      r.error(at(w, `.${k}`), "unknown-field", "unknown field; allowed: label, values, maql");
    if (spec["maql"] !== undefined && (spec["label"] !== undefined || spec["values"] !== undefined)) {
      r.error(w, "contradiction", "give either maql or label and values, not both");
      continue;
    }
    const f =
      spec["maql"] !== undefined
        ? r.rawFilter(workspace, spec["maql"], w)
        : r.labelFilter(workspace, spec["label"], spec["values"], w);
    if (f) out.push(f);
  }
  return out;
}

/** CSV: `sales-emea=region:EMEA+APAC; finance=cost_center:100` (an empty cell: none). */
function fromCell(r: Reader, cell: string, where: Where): DesiredDataFilter[] {
  const out: DesiredDataFilter[] = [];
  const seen = new Set<string>();
  for (const entry of cell
    .split(";")
    .map((e) => e.trim())
    .filter((e) => e !== "")) {
    const eq = entry.indexOf("=");
    const colon = entry.indexOf(":", eq + 1);
    if (eq < 0 || colon < 0) {
      r.error(
        where,
        "bad-data-filters",
        `"${entry}" is not WORKSPACE=LABEL:VALUE+VALUE; write e.g. ${CSV_DATA_FILTERS_FORM}`,
      );
      continue;
    }
    const workspace = entry.slice(0, eq).trim();
    if (!r.workspace(workspace, where)) continue;
    if (seen.has(workspace)) {
      r.error(
        where,
        "contradiction",
        `${workspace} is named twice; write its filter once (${workspace}=LABEL:A+B)`,
      );
      continue;
    }
    seen.add(workspace);
    const values = entry
      .slice(colon + 1)
      .split("+")
      .map((v) => v.trim())
      .filter((v) => v !== "");
    const f = r.labelFilter(workspace, entry.slice(eq + 1, colon), values, where);
    if (f) out.push(f);
  }
  return out;
}

/**
 * The `dataFilters` field: `undefined` when absent (not managed), `null` when it has a problem
 * (reported), else the filters sorted by workspace.
 */
export function readDataFilters(
  value: unknown,
  where: Where,
  problems: ProblemList,
): DesiredDataFilter[] | undefined | null {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" && !isRecord(value)) {
    problems.error(
      where,
      "bad-type",
      "must be a mapping of workspace ids to filters, e.g. {sales-emea: {label: region, values: [EMEA]}}; {} for none",
    );
    return null;
  }
  const r = new Reader(problems);
  const list = typeof value === "string" ? fromCell(r, value, where) : fromMapping(r, value, where);
  if (!r.ok) return null;
  return list.sort((a, b) => compareIds(a.workspace, b.workspace));
}
