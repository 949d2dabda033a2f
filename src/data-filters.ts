/**
 * User data filters (docs/data-filters.md): the vocabulary the reader, the planner, the client and
 * the emulator share. A filter usersync writes is `{label/<id>} IN ("v1", "v2")` (or `= "v"` for
 * one value); it is compared by meaning (label and value set), never by text. Values are MAQL
 * string literals in double quotes; the service's documentation states no escape rule for them,
 * so a value holding a double quote, a backslash or a control character is refused at validation
 * rather than sent in a form whose meaning we cannot prove.
 */
import { createHash } from "node:crypto";
import type { Assignee } from "./permissions.js";

/** The tag on every filter usersync creates; a filter without it is never touched. */
export const MANAGED_TAG = "usersync";
/** Every id usersync derives starts so; an id without it is never touched either. */
export const MANAGED_ID_PREFIX = "usersync-";
/** `attributes.maql` is at most this long (JsonApiUserDataFilterIn). */
export const MAX_MAQL = 10_000;
const LABEL_ID = /^(?!\.)[.A-Za-z0-9_-]{1,255}$/;

/** What a filter says: a label and its values (usersync renders it), or raw MAQL (compared as text). */
export type FilterMeaning = { label: string; values: string[] } | { maql: string };

/** One assignee's filter on one workspace, as the desired state or the service has it. */
export interface DataFilter {
  workspace: string;
  assignee: Assignee;
  maql: string;
}

/** A filter as listed: its id, tags and whether usersync made it. */
export interface ActualDataFilter extends DataFilter {
  id: string;
  title?: string;
  tags: string[];
  /** Tagged `usersync` and with an id usersync derives: only these are ever changed or deleted. */
  managed: boolean;
}

/** The data filters part of the actual state (listed only when the run manages filters). */
export interface ActualDataFilters {
  /** The workspaces in `dataFilters.workspaces` whose filters were listed. */
  workspaces: string[];
  filters: ActualDataFilter[];
}

/** Why a value cannot be written as a MAQL string literal, or undefined when it can. */
export function unsafeValue(value: string): string | undefined {
  if (value === "") return "is empty";
  if (value.includes('"')) return 'holds a double quote (")';
  if (value.includes("\\")) return "holds a backslash";
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return "holds a control character (a line break, a tab...)";
  if (value.length > 255) return `is ${value.length} characters long; at most 255`;
  return undefined;
}

export const isLabelId = (id: string): boolean => LABEL_ID.test(id);

/** A value set: sorted (code-unit order) and each value once, so equal sets are equal lists. */
export const valueSet = (values: readonly string[]): string[] =>
  [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** `{label/region} IN ("APAC", "EMEA")`; the values must have passed `unsafeValue`. */
export function renderMaql(label: string, values: readonly string[]): string {
  const set = valueSet(values).map((v) => `"${v}"`);
  return set.length === 1 ? `{label/${label}} = ${set[0]}` : `{label/${label}} IN (${set.join(", ")})`;
}

const LABEL_FORM =
  /^\s*\{label\/([^}\s]+)\}\s*(?:=\s*("[^"\\]*")|IN\s*\(\s*("[^"\\]*"(?:\s*,\s*"[^"\\]*")*)\s*\))\s*$/i;

/** The meaning of a filter's MAQL: the label form when it is one, else the text (spacing folded). */
export function meaningOf(maql: string): FilterMeaning {
  const m = LABEL_FORM.exec(maql);
  if (m?.[1] !== undefined) {
    const list = m[2] ?? m[3] ?? "";
    const values = [...list.matchAll(/"([^"]*)"/g)].map((x) => x[1] ?? "");
    return { label: m[1], values: valueSet(values) };
  }
  return { maql: maql.trim().replace(/\s+/g, " ") };
}

export function sameMeaning(a: string, b: string): boolean {
  const x = meaningOf(a);
  const y = meaningOf(b);
  if ("label" in x && "label" in y)
    return (
      x.label === y.label &&
      x.values.length === y.values.length &&
      x.values.every((v, i) => v === y.values[i])
    );
  return "maql" in x && "maql" in y && x.maql === y.maql;
}

/**
 * Whether going from `before` to `after` can only show fewer rows: the same label with a subset of
 * its values. Anything else (more values, another label, raw MAQL that changed) may show more,
 * and counts as a widening.
 */
export function isNarrowing(before: string, after: string): boolean {
  const x = meaningOf(before);
  const y = meaningOf(after);
  if ("label" in x && "label" in y) return x.label === y.label && y.values.every((v) => x.values.includes(v));
  return sameMeaning(before, after);
}

/**
 * The id of the filter usersync keeps for one assignee on one workspace: stable, within the id
 * rule whatever the assignee's id, and distinct per workspace (a child workspace also lists the
 * filters it inherits from its parents, so one id per workspace keeps them apart).
 */
export function managedFilterId(workspace: string, a: Assignee): string {
  const h = createHash("sha256").update(`${workspace}\n${a.type}\n${a.id}`).digest("hex").slice(0, 32);
  return `${MANAGED_ID_PREFIX}${h}`;
}

export const isManagedFilter = (f: { id: string; tags: readonly string[] }): boolean =>
  f.tags.includes(MANAGED_TAG) && f.id.startsWith(MANAGED_ID_PREFIX);

/** The title usersync gives a filter (for people browsing the workspace). */
export const filterTitle = (f: DataFilter): string =>
  `usersync: ${f.assignee.type === "user" ? "user" : "group"} ${f.assignee.id}`;
