/**
 * The access review's expected answer, built from the emulator's store by the plainest loops
 * (no code of usersync's): for every mapping and every workspace, the permissions its own grants,
 * its groups' and their parents' grants give there, and the hierarchy grants of the workspaces
 * above; the filters on the workspace and the ones above held by the person or one of their groups.
 */
import type { EmulatorState } from "../../src/emulator/types.js";

export interface Expected {
  /** `person|workspace` -> sorted permissions and filter ids. */
  rows: Map<string, { permissions: string[]; filters: string[] }>;
  loginsOnly: number;
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
  const rows = new Map<string, { permissions: string[]; filters: string[] }>();
  for (const m of state.mappings) {
    const groups = groupsOf(state, m.id);
    const holds = (g: { user?: string; userGroup?: string }): boolean =>
      g.user === m.id || (g.userGroup !== undefined && groups.has(g.userGroup));
    for (const w of state.workspaces ?? []) {
      const perms = new Set<string>();
      for (const g of w.permissions ?? [])
        if (holds(g)) for (const p of [...(g.permissions ?? []), ...(g.hierarchy ?? [])]) perms.add(p);
      for (const up of above(state, w.id).slice(1))
        for (const g of state.workspaces?.find((x) => x.id === up)?.permissions ?? [])
          if (holds(g)) for (const p of g.hierarchy ?? []) perms.add(p);
      if (perms.size === 0) continue;
      const path = above(state, w.id);
      const filters = (state.dataFilters ?? [])
        .filter((f) => path.includes(f.workspace) && holds(f))
        .map((f) => f.id)
        .sort();
      rows.set(`${m.id}|${w.id}`, { permissions: [...perms].sort(), filters });
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
 * A mapping's login: active with a built-in login; else external when the organization signs in
 * through OIDC or the desired state says the person is external; else revoked.
 */
export function loginOf(state: EmulatorState, id: string, external: (id: string) => boolean): string {
  const m = state.mappings.find((x) => x.id === id)!;
  if (state.idpUsers.some((u) => u.authenticationId === m.authenticationId)) return "active";
  return external(id) ? "external" : "revoked";
}
