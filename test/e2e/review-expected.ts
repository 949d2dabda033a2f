/**
 * The access review's expected answer, built from the emulator's store by the plainest loops
 * (no code of usersync's): for every mapping and every workspace, the permissions its own grants,
 * its groups' and their parents' grants give there, and the hierarchy grants of the workspaces
 * above; the filters on the workspace and the ones above held by the person or one of their groups.
 */
import type { EmulatorState } from "../../src/emulator/types.js";

export interface Expected {
  /**
   * `person|workspace` -> sorted effective permissions, sorted granted ones, whether the row reaches
   * the workspace (VIEW held or covered) and sorted filter ids.
   */
  rows: Map<string, { permissions: string[]; granted: string[]; reaches: boolean; filters: string[] }>;
  loginsOnly: number;
}

/**
 * What each permission covers, written out from shared/spec/access-rules.md (R5 MANAGE, R6
 * ANALYZE and EXPORT and its parts, R7 the add-ons cover nothing, R8 MANAGE covers no add-on but
 * CREATE_FILTER_VIEW), not taken from usersync.
 */
const COVERS: Record<string, string[]> = {
  MANAGE: ["VIEW", "CREATE_FILTER_VIEW", "ANALYZE", "EXPORT", "EXPORT_PDF", "EXPORT_TABULAR"],
  ANALYZE: ["VIEW"],
  EXPORT: ["VIEW", "EXPORT_PDF", "EXPORT_TABULAR"],
  EXPORT_PDF: ["VIEW"],
  EXPORT_TABULAR: ["VIEW"],
};
/** R9: organization MANAGE reaches every workspace with every workspace permission. */
export const EVERY_WORKSPACE_PERMISSION = [
  "ANALYZE",
  "CREATE_AUTOMATION",
  "CREATE_FILTER_VIEW",
  "EXPORT",
  "EXPORT_PDF",
  "EXPORT_TABULAR",
  "MANAGE",
  "USE_AI_ASSISTANT",
  "VIEW",
];

export function covered(granted: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const p of granted) {
    out.add(p);
    for (const c of COVERS[p] ?? []) out.add(c);
  }
  return [...out].sort();
}

function groupsOf(state: EmulatorState, userId: string): Set<string> {
  const out = new Set<string>();
  const todo = [...(state.mappings.find((m) => m.id === userId)?.groups ?? [])];
  while (todo.length > 0) {
    const g = todo.pop()!;
    if (out.has(g)) continue;
    out.add(g);
    todo.push(...(state.groups.find((x) => x.id === g)?.parents ?? []));
  }
  return out;
}

function above(state: EmulatorState, ws: string): string[] {
  const out: string[] = [];
  let at: string | undefined = ws;
  while (at !== undefined && !out.includes(at)) {
    out.push(at);
    at = state.workspaces?.find((w) => w.id === at)?.parent;
  }
  return out;
}

export function expectedAccess(state: EmulatorState): Expected {
  const rows: Expected["rows"] = new Map();
  const orgAdmins = new Set(
    [...expectedOrganization(state)].filter(([, p]) => p.includes("MANAGE")).map(([id]) => id),
  );
  for (const m of state.mappings) {
    const groups = groupsOf(state, m.id);
    const admin = orgAdmins.has(m.id);
    const holds = (g: { user?: string; userGroup?: string }): boolean =>
      g.user === m.id || (g.userGroup !== undefined && groups.has(g.userGroup));
    for (const w of state.workspaces ?? []) {
      const perms = new Set<string>();
      for (const g of w.permissions ?? [])
        if (holds(g)) for (const p of [...(g.permissions ?? []), ...(g.hierarchy ?? [])]) perms.add(p);
      for (const up of above(state, w.id).slice(1))
        for (const g of state.workspaces?.find((x) => x.id === up)?.permissions ?? [])
          if (holds(g)) for (const p of g.hierarchy ?? []) perms.add(p);
      if (perms.size === 0 && !admin) continue;
      const path = above(state, w.id);
      const filters = (state.dataFilters ?? [])
        .filter((f) => path.includes(f.workspace) && holds(f))
        .map((f) => f.id)
        .sort();
      const effective = admin ? EVERY_WORKSPACE_PERMISSION : covered(perms);
      rows.set(`${m.id}|${w.id}`, {
        permissions: effective,
        granted: [...perms].sort(),
        reaches: effective.includes("VIEW"),
        filters,
      });
    }
  }
  const linked = new Set(state.mappings.map((m) => m.authenticationId));
  return { rows, loginsOnly: state.idpUsers.filter((u) => !linked.has(u.authenticationId)).length };
}

/** Organization permissions by user id: their own and their groups'. */
export function expectedOrganization(state: EmulatorState): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const m of state.mappings) {
    const groups = groupsOf(state, m.id);
    const perms = new Set<string>();
    for (const o of state.organizationPermissions ?? [])
      if (o.user === m.id || (o.userGroup !== undefined && groups.has(o.userGroup)))
        o.permissions.forEach((p) => perms.add(p));
    if (perms.size > 0) out.set(m.id, [...perms].sort());
  }
  return out;
}

/**
 * A mapping's login (access-rules R15, R16): shadowed when an alphabetically earlier userId shares
 * its authenticationId; active with a built-in login; external for the API token's user, for an
 * e-mail whose domain an identity provider claims (`identifiers`), or when `external` says so (the
 * organization signs in through OIDC, or the desired state says the person is external); else
 * revoked. `claimedDomains`: the seeded identity providers' identifiers (the emulator's state
 * does not carry them).
 */
export function loginOf(
  state: EmulatorState,
  id: string,
  external: (id: string) => boolean,
  o: { caller?: string; claimedDomains?: readonly string[] } = {},
): string {
  const m = state.mappings.find((x) => x.id === id)!;
  if (
    m.authenticationId !== undefined &&
    state.mappings.some((o) => o.authenticationId === m.authenticationId && o.id < m.id)
  )
    return "shadowed";
  if (state.idpUsers.some((u) => u.authenticationId === m.authenticationId)) return "active";
  if (id === o.caller) return "external";
  const domain = m.email?.split("@")[1]?.toLowerCase();
  const claimed = (o.claimedDomains ?? []).some((d) => d.toLowerCase() === domain);
  return claimed || external(id) ? "external" : "revoked";
}
