/**
 * A users CSV read through `source.columns` (issue 49): HR's own header ("Work Email",
 * "Department") mapped to the desired fields. The mapping turns each row into the row usersync
 * would read with its own column names, so every rule after it is the same as for such a file.
 */
import { visible } from "./characters.js";
import type { ProblemList } from "./problems.js";
import { didYouMean } from "../suggest.js";

/** One field's source, as `source.columns` gives it. */
export type MappedFieldConfig =
  string | string[] | { from: string | string[]; lower?: boolean; map?: Record<string, string> | undefined };

export type ColumnMapping = Partial<Record<string, MappedFieldConfig>>;

/** One desired field, taken from the first non-empty of `indices`, transformed. */
interface MappedField {
  field: string;
  /** What messages call it: `groups (from "Department")`. */
  label: string;
  indices: number[];
  lower: boolean;
  map: Map<string, string> | undefined;
  /** A list field: the map applies to each `;`-separated item. */
  list: boolean;
}

/** The header the rest of the reader sees, and how to make each row of it. */
export interface Projection {
  /** usersync's field names, for readHeader. */
  names: string[];
  /** Messages about a mapped field name its HR column too. */
  labels: Record<string, string>;
  /** How many cells a row of the file has (the HR header's width). */
  width: number;
  project(row: readonly string[]): string[];
}

const normalised = (
  c: MappedFieldConfig,
): { from: string[]; lower: boolean; map?: Record<string, string> } =>
  typeof c === "string"
    ? { from: [c], lower: false }
    : Array.isArray(c)
      ? { from: c, lower: false }
      : {
          from: typeof c.from === "string" ? [c.from] : c.from,
          lower: c.lower ?? false,
          ...(c.map !== undefined ? { map: c.map } : {}),
        };

/** Map keys compare trimmed and case-insensitively: "People Operations" and "people operations ". */
const mapKey = (v: string): string => v.trim().toLowerCase();

/**
 * The projection of a file whose header is `header`, or undefined when a mapped column is not
 * in it (reported, with the nearest column of the file). Columns the mapping does not use are
 * ignored, except those named as usersync names a field the mapping leaves unmapped.
 */
export function projectHeader(options: {
  file: string;
  line: number;
  header: readonly string[];
  mapping: ColumnMapping;
  fields: readonly string[];
  /** Columns kept for a target's selector: read as they are, like a field left unmapped. */
  extra?: readonly string[] | undefined;
  lists: readonly string[];
  problems: ProblemList;
}): Projection | undefined {
  const { file, line, header, mapping, problems } = options;
  const fields = [...options.fields, ...(options.extra ?? [])];
  const byName = new Map<string, number>();
  header.forEach((h, i) => {
    const key = h.trim().toLowerCase();
    if (!byName.has(key)) byName.set(key, i);
  });
  const mapped: MappedField[] = [];
  let ok = true;
  for (const [field, config] of Object.entries(mapping)) {
    if (config === undefined) continue;
    const { from, lower, map } = normalised(config);
    const indices: number[] = [];
    for (const column of from) {
      const at = byName.get(column.trim().toLowerCase());
      if (at !== undefined) indices.push(at);
      else {
        ok = false;
        problems.error(
          { file, line, field: visible(column) },
          "unknown-column",
          `source.columns.${field} reads column "${visible(column)}", which the file's header does not have; ${didYouMean(
            column,
            header.map((h) => h.trim()),
          )}correct source.columns (the header has ${header.map((h) => JSON.stringify(h.trim())).join(", ")})`,
        );
      }
    }
    const label = `${field} (from ${from.map((c) => JSON.stringify(c)).join(" or ")})`;
    const table =
      map === undefined ? undefined : new Map(Object.entries(map).map(([k, v]) => [mapKey(k), v]));
    mapped.push({ field, label, indices, lower, map: table, list: options.lists.includes(field) });
  }
  if (!ok) return undefined;
  const taken = new Set([...mapped.flatMap((m) => m.indices)]);
  // A column spelled as a field the mapping leaves out is read as that field (an `id` column).
  const direct = header.flatMap((h, i) => {
    const field = fields.find((f) => f.toLowerCase() === h.trim().toLowerCase());
    return field !== undefined && mapping[field] === undefined && !taken.has(i) ? [{ field, i }] : [];
  });
  const labels = Object.fromEntries(mapped.map((m) => [m.field, m.label]));
  return {
    names: [...mapped.map((m) => m.field), ...direct.map((d) => d.field)],
    labels,
    width: header.length,
    project: (row) => [...mapped.map((m) => valueOf(m, row)), ...direct.map((d) => row[d.i] ?? "")],
  };
}

function valueOf(m: MappedField, row: readonly string[]): string {
  let value = "";
  for (const i of m.indices) {
    value = (row[i] ?? "").trim();
    if (value !== "") break;
  }
  if (m.lower) value = value.toLowerCase();
  const table = m.map;
  if (table === undefined || value === "") return value;
  if (!m.list) return table.get(mapKey(value)) ?? value;
  return value
    .split(";")
    .map((item) => table.get(mapKey(item)) ?? item.trim())
    .join(";");
}
