/**
 * `usersync export`: the organization's users and groups as a desired-state file, the first
 * step of adopting the tool. Ids are always written (never left to derivation), the order is
 * sorted by id, and CSV cells are neutralised against spreadsheet formulas.
 */
import { Document, stringify } from "yaml";
import type { ActualState, ApiProfile, IdpUser } from "../service/types.js";
import { csvLine } from "./csv-cell.js";
import { accessByAssignee, csvWorkspaces, yamlWorkspaces, type ExportedAccess } from "./export-access.js";
import { csvFilters, filtersByAssignee, handMadeFilterComment, yamlFilters } from "./export-filters.js";
import { loginOf, revokedWarning, type SignInKind } from "./export-logins.js";
import type { DesiredFormat } from "./types.js";

export interface ExportOptions {
  format: DesiredFormat;
  profile: ApiProfile;
  /** Organization MANAGE is exported only when the config may manage it (export-access.ts). */
  allowOrganizationManage?: boolean;
  /**
   * How the organization signs people in, when the service said: tells a revoked built-in login
   * from an external SSO user when a mapping's authenticationId matches no built-in login.
   */
  signIn?: SignInKind | undefined;
  /** The workspaces whose usersync filters are written (`dataFilters.workspaces`); all listed when unset. */
  filterScope?: (workspace: string) => boolean;
  /** List the hand-made filters too, as a comment at the end of the YAML (never as desired state). */
  handMadeFilters?: boolean;
}

export interface ExportResult {
  /** The YAML document, or the users CSV. */
  users: string;
  /** CSV only: the groups CSV (`id,name,parents`), written beside the users file. */
  groups?: string;
  warnings: string[];
}

interface ExportUser extends ExportedAccess {
  email: string;
  id: string;
  displayName?: string;
  firstname?: string;
  lastname?: string;
  groups: string[];
  identity: "builtin" | "external";
  authenticationId?: string;
  /** `absent`: a person whose built-in login was revoked (export-logins.ts). */
  state?: "absent";
}

interface ExportGroup extends ExportedAccess {
  id: string;
  name?: string;
  parents?: string[];
}

/** Where the CLI writes the groups CSV of a CSV export: beside the users file, `users.csv` -> `users-groups.csv`. */
export function groupsPathFor(usersPath: string): string {
  return /\.csv$/i.test(usersPath) ? usersPath.replace(/\.csv$/i, "-groups.csv") : `${usersPath}-groups.csv`;
}

const byId = <T extends { id: string }>(a: T, b: T): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function renderExport(actual: ActualState, options: ExportOptions): ExportResult {
  const access = accessByAssignee(actual.permissions, {
    allowOrganizationManage: options.allowOrganizationManage ?? false,
  });
  const warnings: string[] = [...access.warnings];
  const { users: plain, linked } = exportUsers(actual, options, warnings);
  const filters = filtersByAssignee(actual.dataFilters, options.filterScope);
  // A revoked person is named only to say so: no groups, grants or filters (a row marked absent carries none).
  const users = plain.map((u) =>
    u.state === "absent"
      ? u
      : { ...u, ...access.of({ type: "user", id: u.id }), ...filters({ type: "user", id: u.id }) },
  );
  const revoked = users.filter((u) => u.state === "absent").length;
  if (revoked > 0) warnings.push(revokedWarning(revoked));
  const unlinked = actual.idpUsers.length - linked;
  if (unlinked > 0)
    warnings.push(
      `${unlinked} built-in identity provider user(s) have no mapping in this organization and are not exported`,
    );
  const groups: ExportGroup[] = [...actual.groups].sort(byId).map((g) => ({
    id: g.id,
    ...(g.name !== undefined ? { name: g.name } : {}),
    ...(options.profile === "v1" && g.parents.length > 0 ? { parents: [...g.parents].sort() } : {}),
    ...access.of({ type: "userGroup", id: g.id }),
    ...filters({ type: "userGroup", id: g.id }),
  }));
  if (users.length === 0)
    warnings.push(
      options.format === "yaml"
        ? "the organization has no exportable users: the file says allowEmpty: true"
        : "the organization has no exportable users: a CSV file without rows is not a valid desired state (export as YAML, which can say allowEmpty: true)",
    );

  if (options.format === "yaml") return { users: renderYaml(users, groups, actual, options), warnings };
  const skipped = { count: 0 };
  const csv = renderCsv(users, groups, options.profile, skipped);
  if (skipped.count > 0)
    warnings.push(
      `${skipped.count} data filter(s) in raw MAQL (or with ; + = in a value) cannot be written in a CSV cell and are not exported: export as YAML`,
    );
  return { ...csv, warnings };
}

function renderYaml(
  users: readonly ExportUser[],
  groups: readonly ExportGroup[],
  actual: ActualState,
  options: ExportOptions,
): string {
  const yamlOf = <T extends ExportedAccess>({ workspaces, organization, dataFilters, ...all }: T) => {
    const { groups: memberOf, ...rest } = all as T & { groups?: string[]; state?: "absent" };
    return {
      ...rest,
      ...(memberOf !== undefined && rest.state !== "absent" ? { groups: memberOf } : {}),
      ...(workspaces !== undefined ? { workspaces: yamlWorkspaces(workspaces) } : {}),
      ...(organization !== undefined ? { organization } : {}),
      ...(dataFilters !== undefined ? { dataFilters: yamlFilters(dataFilters) } : {}),
    };
  };
  const doc = {
    version: 1,
    ...(users.length === 0 ? { allowEmpty: true } : {}),
    groups: groups.map(yamlOf),
    users: users.map(yamlOf),
  };
  const comment = options.handMadeFilters ? handMadeFilterComment(actual.dataFilters) : undefined;
  if (comment === undefined) return stringify(doc, { lineWidth: 0 });
  const withComment = new Document(doc);
  withComment.comment = comment;
  return withComment.toString({ lineWidth: 0 });
}

/** Whether any of the records holds permissions: only then do the CSV files get those columns. */
const anyAccess = (list: readonly ExportedAccess[]): boolean =>
  list.some((r) => r.workspaces !== undefined || r.organization !== undefined);
const anyFilters = (list: readonly ExportedAccess[]): boolean =>
  list.some((r) => r.dataFilters !== undefined);
const accessCells = (r: ExportedAccess): string[] => [
  csvWorkspaces(r.workspaces),
  (r.organization ?? []).join(";"),
];

function renderCsv(
  users: ExportUser[],
  groups: ExportGroup[],
  profile: ApiProfile,
  skipped: { count: number },
): { users: string; groups: string } {
  const v1 = profile === "v1";
  const userAccess = anyAccess(users);
  const groupAccess = anyAccess(groups);
  const userFilters = anyFilters(users);
  const groupFilters = anyFilters(groups);
  const anyAbsent = users.some((u) => u.state === "absent");
  const columns = [
    "email",
    "id",
    "displayName",
    ...(v1 ? ["firstname", "lastname"] : []),
    "groups",
    "identity",
    "authenticationId",
    ...(userAccess ? ["workspaces", "organization"] : []),
    ...(userFilters ? ["dataFilters"] : []),
    ...(anyAbsent ? ["state"] : []),
  ];
  const rows = users.map((u) => [
    u.email,
    u.id,
    u.displayName ?? "",
    ...(v1 ? [u.firstname ?? "", u.lastname ?? ""] : []),
    u.groups.join(";"),
    u.identity,
    u.authenticationId ?? "",
    ...(userAccess ? accessCells(u) : []),
    ...(userFilters ? [csvFilters(u.dataFilters, skipped)] : []),
    ...(anyAbsent ? [u.state ?? ""] : []),
  ]);
  const groupRows = groups.map((g) => [
    g.id,
    g.name ?? "",
    (g.parents ?? []).join(";"),
    ...(groupAccess ? accessCells(g) : []),
    ...(groupFilters ? [csvFilters(g.dataFilters, skipped)] : []),
  ]);
  const groupColumns = [
    "id",
    "name",
    "parents",
    ...(groupAccess ? ["workspaces", "organization"] : []),
    ...(groupFilters ? ["dataFilters"] : []),
  ];
  return {
    users: [columns, ...rows].map(csvLine).join(""),
    groups: [groupColumns, ...groupRows].map(csvLine).join(""),
  };
}

function exportUsers(
  actual: ActualState,
  options: ExportOptions,
  warnings: string[],
): { users: ExportUser[]; linked: number } {
  const idpByAuth = new Map<string, IdpUser>(actual.idpUsers.map((u) => [u.authenticationId, u]));
  const linkedAuth = new Set<string>();
  const users: ExportUser[] = [];
  for (const m of [...actual.mappings].sort(byId)) {
    const idp = m.authenticationId !== undefined ? idpByAuth.get(m.authenticationId) : undefined;
    const names = options.profile === "v1" ? { firstname: m.firstname, lastname: m.lastname } : {};
    const base = {
      ...(names.firstname !== undefined ? { firstname: names.firstname } : {}),
      ...(names.lastname !== undefined ? { lastname: names.lastname } : {}),
      groups: [...m.groups].sort(),
    };
    const login = loginOf(m, idp, { builtinIdp: actual.builtinIdp !== false, signIn: options.signIn });
    const email = m.email !== undefined && m.email !== "" ? m.email : undefined;
    if (idp && linkedAuth.has(idp.authenticationId)) {
      warnings.push(
        `user "${m.id}" shares its authenticationId with another user (a conflict: only one can sign in); it is not exported`,
      );
    } else if (idp) {
      linkedAuth.add(idp.authenticationId);
      users.push({ email: idp.email, id: m.id, displayName: idp.displayName, ...base, identity: "builtin" });
    } else if (login === "external" && email !== undefined) {
      users.push({ email, id: m.id, ...base, identity: "external", authenticationId: m.authenticationId! });
    } else if (login === "revoked" && email !== undefined) {
      users.push({ email, id: m.id, groups: [], identity: "builtin", state: "absent" });
    } else {
      warnings.push(
        login === "revoked"
          ? `user "${m.id}" has no built-in login (revoked, or never linked) and no email attribute; it is not exported`
          : `user "${m.id}" signs in with an external identity provider but has no email attribute; it is not exported`,
      );
    }
  }
  return { users, linked: linkedAuth.size };
}
