/**
 * What the desired state gives a person, for the review's agreement columns and findings: the
 * permissions on each workspace (their own grants and their desired groups', parents included,
 * `hierarchy` spread down the listed workspace tree), the organization permissions, and the data
 * filters. "Gives" is strict: a user or group that leaves `workspaces` (or `organization`, or
 * `dataFilters`) out gives nothing there, since usersync does not manage it.
 */
import { sameMeaning } from "../data-filters.js";
import type { DesiredGroup, DesiredState, DesiredUser } from "../desired/types.js";
import {
  permissionSet,
  type Assignee,
  type OrganizationPermission,
  type WorkspacePermission,
} from "../permissions.js";

export interface DesiredAccessOf {
  workspaces: Map<string, WorkspacePermission[]>;
  organization: OrganizationPermission[];
  /** MAQL by workspace the filter holds on (a parent's filter listed under each workspace below it too). */
  filters: Map<string, string[]>;
}

export interface DesiredIndex {
  user(id: string): DesiredUser | undefined;
  userByEmail(email: string): DesiredUser | undefined;
  /** What a present desired user gets; `actualGroups` when the user leaves `groups` out. */
  accessOf(u: DesiredUser, actualGroups: readonly string[]): DesiredAccessOf;
  /** Whether the desired state gives `holder` this grant on `workspace` (permissions within it). */
  givesGrant(
    holder: Assignee,
    workspace: string,
    permissions: readonly WorkspacePermission[],
    hierarchy: boolean,
  ): boolean;
  givesFilter(holder: Assignee, workspace: string, maql: string): boolean;
  givesOrganization(holder: Assignee, permissions: readonly OrganizationPermission[]): boolean;
}

// eslint-disable-next-line max-lines-per-function -- the index and its closures over the desired state
export function makeDesiredIndex(o: {
  desired: DesiredState;
  actualGroupParents: ReadonlyMap<string, readonly string[]>;
  /** The workspace and every one below it (the listed tree). */
  below: (workspace: string) => readonly string[];
  /** Whether usersync manages permissions / filters on a workspace (policy globs). */
  managesPermissions: (workspace: string) => boolean;
}): DesiredIndex {
  const users = new Map(o.desired.users.map((u) => [u.id, u]));
  const byEmail = new Map(o.desired.users.map((u) => [u.email.toLowerCase(), u]));
  const groups = new Map(o.desired.groups.map((g) => [g.id, g]));
  const parents = (g: string): readonly string[] =>
    groups.get(g)?.parents ?? o.actualGroupParents.get(g) ?? [];
  const holderOf = (a: Assignee): DesiredUser | DesiredGroup | undefined =>
    a.type === "user" ? users.get(a.id) : groups.get(a.id);

  const closure = (start: readonly string[]): string[] => {
    const out = new Set<string>();
    const walk = (g: string): void => {
      if (out.has(g)) return;
      out.add(g);
      for (const p of parents(g)) walk(p);
    };
    start.forEach(walk);
    return [...out];
  };

  return {
    user: (id) => users.get(id),
    userByEmail: (email) => byEmail.get(email.toLowerCase()),
    accessOf(u, actualGroups) {
      const holders: Array<DesiredUser | DesiredGroup> = [u];
      for (const g of closure(u.groups ?? actualGroups)) {
        const d = groups.get(g);
        if (d) holders.push(d);
      }
      const workspaces = new Map<string, WorkspacePermission[]>();
      const give = (ws: string, p: readonly WorkspacePermission[]): void => {
        if (p.length > 0) workspaces.set(ws, permissionSet([...(workspaces.get(ws) ?? []), ...p]));
      };
      const filterWs = new Map<string, string[]>();
      const organization: OrganizationPermission[] = [];
      for (const h of holders) {
        for (const g of h.workspaces ?? []) {
          give(g.workspace, [...g.permissions, ...g.hierarchy]);
          if (g.hierarchy.length > 0) for (const w of o.below(g.workspace).slice(1)) give(w, g.hierarchy);
        }
        organization.push(...(h.organization ?? []));
        for (const f of h.dataFilters ?? [])
          filterWs.set(f.workspace, [...(filterWs.get(f.workspace) ?? []), f.maql]);
      }
      // A filter on a workspace narrows every workspace below it: listed under each.
      const filters = new Map<string, string[]>();
      for (const [ws, list] of filterWs)
        for (const w of o.below(ws)) filters.set(w, [...(filters.get(w) ?? []), ...list]);
      return { workspaces, organization: permissionSet(organization), filters };
    },
    givesGrant(holder, workspace, permissions, hierarchy) {
      if (!o.managesPermissions(workspace)) return false;
      const h = holderOf(holder);
      if (h === undefined || (h as DesiredUser).state === "absent") return false;
      const g = h.workspaces?.find((w) => w.workspace === workspace);
      if (!g) return false;
      const allowed = hierarchy ? g.hierarchy : [...g.permissions, ...g.hierarchy];
      return permissions.every((p) => allowed.includes(p));
    },
    givesFilter(holder, workspace, maql) {
      const h = holderOf(holder);
      return (h?.dataFilters ?? []).some((f) => f.workspace === workspace && sameMeaning(f.maql, maql));
    },
    givesOrganization(holder, permissions) {
      const h = holderOf(holder);
      const have = h?.organization;
      return have !== undefined && permissions.every((p) => have.includes(p));
    },
  };
}
