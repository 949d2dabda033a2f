/**
 * Permissions in the desired state: the `workspaces` and `organization` fields of users and
 * groups (docs/permissions.md), read from YAML (a mapping, a list) or CSV (one cell each) and
 * checked name by name. Permission names are the API's, in any case; workspace ids follow the
 * id rule. A workspace named twice for one user or group is a contradiction, not a merge.
 */
import {
  compareIds,
  ORGANIZATION_PERMISSIONS,
  WORKSPACE_PERMISSIONS,
  grantOf,
  isOrganizationPermission,
  isWorkspacePermission,
  permissionSet,
  type OrganizationPermission,
  type WorkspacePermission,
} from "../permissions.js";
import { readDataFilters } from "./data-filters.js";
import { isValidId } from "./ids.js";
import type { ProblemList, Where } from "./problems.js";
import type { DesiredAccess, DesiredWorkspaceGrant } from "./types.js";

/** The CSV form of the `workspaces` cell, for messages and docs. */
export const CSV_WORKSPACES_FORM = "sales-emea=VIEW+EXPORT; finance=ANALYZE; finance/*=VIEW";
/** `finance/*`: the hierarchy permissions of `finance` (on it and every workspace below it). */
const HIERARCHY_SUFFIX = "/*";

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const at = (where: Where, part: string): Where => ({ ...where, field: `${where.field ?? ""}${part}` });

interface Reader {
  problems: ProblemList;
  ok: boolean;
}

function names<P extends string>(
  r: Reader,
  list: unknown,
  where: Where,
  kind: { is: (v: string) => v is P; all: readonly string[]; what: string },
): P[] {
  if (!Array.isArray(list)) {
    r.problems.error(
      where,
      "bad-type",
      `must be a list of permissions, e.g. [${kind.all[kind.all.length - 1]}]; [] for none`,
    );
    r.ok = false;
    return [];
  }
  const out: P[] = [];
  for (const item of list) {
    const name = typeof item === "string" ? item.trim().toUpperCase() : undefined;
    if (name !== undefined && kind.is(name)) out.push(name);
    else {
      r.problems.error(
        where,
        "unknown-permission",
        `${JSON.stringify(item)} is not ${kind.what} permission; known: ${kind.all.join(", ")}`,
      );
      r.ok = false;
    }
  }
  return permissionSet(out);
}

const WORKSPACE = { is: isWorkspacePermission, all: WORKSPACE_PERMISSIONS, what: "a workspace" };
const ORGANIZATION = { is: isOrganizationPermission, all: ORGANIZATION_PERMISSIONS, what: "an organization" };

function checkWorkspaceId(r: Reader, id: string, where: Where): void {
  if (isValidId(id)) return;
  r.problems.error(
    where,
    "bad-workspace-id",
    `"${id}" is not a valid workspace id (letters, digits, ".", "_", "-"; not starting with "."; at most 255)`,
  );
  r.ok = false;
}

/** YAML: `{sales-emea: [VIEW], finance: {permissions: [ANALYZE], hierarchy: [VIEW]}}`. */
function fromMapping(r: Reader, value: Record<string, unknown>, where: Where): DesiredWorkspaceGrant[] {
  const out: DesiredWorkspaceGrant[] = [];
  for (const [workspace, spec] of Object.entries(value)) {
    const w = at(where, `.${workspace}`);
    checkWorkspaceId(r, workspace, w);
    if (Array.isArray(spec)) {
      out.push({ workspace, ...grantOf({ permissions: names(r, spec, w, WORKSPACE) }) });
      continue;
    }
    if (!isRecord(spec)) {
      r.problems.error(
        w,
        "bad-type",
        "must be a list of permissions, or {permissions: [...], hierarchy: [...]}; [] for none",
      );
      r.ok = false;
      continue;
    }
    for (const key of Object.keys(spec))
      if (key !== "permissions" && key !== "hierarchy") {
        r.problems.error(at(w, `.${key}`), "unknown-field", "unknown field; allowed: permissions, hierarchy");
        r.ok = false;
      }
    const read = (key: string): WorkspacePermission[] =>
      spec[key] === undefined ? [] : names(r, spec[key], at(w, `.${key}`), WORKSPACE);
    out.push({ workspace, ...grantOf({ permissions: read("permissions"), hierarchy: read("hierarchy") }) });
  }
  return out;
}

/** CSV: `sales-emea=VIEW+EXPORT; finance=ANALYZE; finance/*=VIEW` (an empty cell: none). */
function fromCell(r: Reader, cell: string, where: Where): DesiredWorkspaceGrant[] {
  const by = new Map<string, { permissions?: WorkspacePermission[]; hierarchy?: WorkspacePermission[] }>();
  for (const entry of cell
    .split(";")
    .map((e) => e.trim())
    .filter((e) => e !== "")) {
    const eq = entry.indexOf("=");
    if (eq < 0) {
      r.problems.error(
        where,
        "bad-workspaces",
        `"${entry}" is not WORKSPACE=PERMISSION+PERMISSION; write e.g. ${CSV_WORKSPACES_FORM}`,
      );
      r.ok = false;
      continue;
    }
    const key = entry.slice(0, eq).trim();
    const below = key.endsWith(HIERARCHY_SUFFIX);
    const workspace = below ? key.slice(0, -HIERARCHY_SUFFIX.length) : key;
    checkWorkspaceId(r, workspace, where);
    const list = entry
      .slice(eq + 1)
      .split("+")
      .map((p) => p.trim())
      .filter((p) => p !== "");
    const grant = by.get(workspace) ?? {};
    const part = below ? "hierarchy" : "permissions";
    if (grant[part] !== undefined) {
      r.problems.error(
        where,
        "contradiction",
        `${key} is named twice; write its permissions once (${key}=A+B)`,
      );
      r.ok = false;
    }
    grant[part] = names(r, list, where, WORKSPACE);
    by.set(workspace, grant);
  }
  return [...by].map(([workspace, g]) => ({ workspace, ...grantOf(g) }));
}

/**
 * The `workspaces` field: `undefined` when absent (not managed), `null` when it has a problem
 * (reported), else the grants sorted by workspace.
 */
export function readWorkspaces(
  value: unknown,
  where: Where,
  problems: ProblemList,
): DesiredWorkspaceGrant[] | undefined | null {
  if (value === undefined || value === null) return undefined;
  const r: Reader = { problems, ok: true };
  if (typeof value !== "string" && !isRecord(value)) {
    problems.error(
      where,
      "bad-type",
      "must be a mapping of workspace ids to permissions, e.g. {sales-emea: [VIEW, EXPORT]}; {} for none",
    );
    return null;
  }
  const grants = typeof value === "string" ? fromCell(r, value, where) : fromMapping(r, value, where);
  if (!r.ok) return null;
  return grants.sort((a, b) => compareIds(a.workspace, b.workspace));
}

/** The `organization` field: a list of MANAGE, SELF_CREATE_TOKEN (CSV: `;`-separated). */
export function readOrganization(
  value: unknown,
  where: Where,
  problems: ProblemList,
): OrganizationPermission[] | undefined | null {
  if (value === undefined || value === null) return undefined;
  const r: Reader = { problems, ok: true };
  const list = names(r, value, where, ORGANIZATION);
  return r.ok ? list : null;
}

/** The two fields of one raw record (records.ts `RawRecord`), as YAML values or CSV cells. */
interface AccessFields {
  values?: { workspaces?: unknown; organization?: unknown; dataFilters?: unknown };
  text: { workspaces?: string; dataFilters?: string };
  lists: { organization?: string[] };
  where(field: "workspaces" | "organization" | "dataFilters"): Where;
}

/** `workspaces`, `organization` and `dataFilters` of a record; undefined when either has a problem (reported). */
export function readAccess(raw: AccessFields, problems: ProblemList): DesiredAccess | undefined {
  const workspaces = readWorkspaces(
    raw.values?.workspaces ?? raw.text.workspaces,
    raw.where("workspaces"),
    problems,
  );
  const organization = readOrganization(
    raw.values?.organization ?? raw.lists.organization,
    raw.where("organization"),
    problems,
  );
  const dataFilters = readDataFilters(
    raw.values?.dataFilters ?? raw.text.dataFilters,
    raw.where("dataFilters"),
    problems,
  );
  if (workspaces === null || organization === null || dataFilters === null) return undefined;
  return {
    ...(workspaces !== undefined ? { workspaces } : {}),
    ...(organization !== undefined ? { organization } : {}),
    ...(dataFilters !== undefined ? { dataFilters } : {}),
  };
}
