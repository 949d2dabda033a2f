/**
 * The emulator's workspaces and permissions: the workspace hierarchy, the direct grants on each
 * workspace (indexed both by workspace and by assignee, so the per-workspace layout and the
 * per-assignee user-management answers are both cheap), and the organization grants. An empty
 * grant is never stored: a pair with nothing is simply absent, as in the service's answers.
 */
import {
  compareIds as cmp,
  assigneeKey,
  grantOf,
  isEmptyGrant,
  isOrganizationPermission,
  isWorkspacePermission,
  permissionSet,
  type Assignee,
  type OrganizationAssignment,
  type OrganizationPermission,
  type WorkspaceAssignment,
  type WorkspaceGrant,
} from "../permissions.js";
import { SortedIds } from "./sorted-ids.js";
import type { SeedAssignee, SeedOrganizationPermission, SeedWorkspace } from "./types.js";

export interface WorkspaceRec {
  id: string;
  name?: string;
  parent?: string;
}

export class AccessStore {
  readonly workspaces = new Map<string, WorkspaceRec>();
  readonly workspaceIds = new SortedIds();
  /** workspace id -> assignee key -> grant. */
  private readonly byWorkspace = new Map<string, Map<string, WorkspaceAssignment>>();
  /** assignee key -> workspace id -> grant (the same objects). */
  private readonly byAssignee = new Map<string, Map<string, WorkspaceAssignment>>();
  private readonly organization = new Map<string, OrganizationAssignment>();
  private readonly children = new Map<string, Set<string>>();

  /** `changed` bumps the store's revision (persistence). */
  constructor(private readonly changed: () => void) {}

  putWorkspace(rec: WorkspaceRec): void {
    const old = this.workspaces.get(rec.id);
    if (old?.parent !== undefined) this.children.get(old.parent)?.delete(rec.id);
    if (!old) this.workspaceIds.add(rec.id);
    this.workspaces.set(rec.id, rec);
    if (rec.parent !== undefined) {
      const set = this.children.get(rec.parent) ?? new Set<string>();
      set.add(rec.id);
      this.children.set(rec.parent, set);
    }
    this.changed();
  }

  childCount(id: string): number {
    return this.children.get(id)?.size ?? 0;
  }

  /** Every direct grant on a workspace, by assignee key. */
  grantsOn(workspace: string): WorkspaceAssignment[] {
    const m = this.byWorkspace.get(workspace);
    return m ? [...m.keys()].sort(cmp).map((k) => m.get(k)!) : [];
  }

  /** Every direct grant of an assignee, by workspace id. */
  grantsOf(assignee: Assignee): WorkspaceAssignment[] {
    const m = this.byAssignee.get(assigneeKey(assignee));
    return m ? [...m.keys()].sort(cmp).map((k) => m.get(k)!) : [];
  }

  grant(workspace: string, assignee: Assignee): WorkspaceGrant {
    const a = this.byWorkspace.get(workspace)?.get(assigneeKey(assignee));
    return a ? { permissions: a.permissions, hierarchy: a.hierarchy } : { permissions: [], hierarchy: [] };
  }

  /** Makes the assignee's grant on the workspace exactly `grant` (empty: none). */
  setGrant(workspace: string, assignee: Assignee, grant: WorkspaceGrant): void {
    const key = assigneeKey(assignee);
    const clean = grantOf(grant);
    if (isEmptyGrant(clean)) {
      this.byWorkspace.get(workspace)?.delete(key);
      this.byAssignee.get(key)?.delete(workspace);
    } else {
      const a: WorkspaceAssignment = { workspace, assignee: { ...assignee }, ...clean };
      mapOf(this.byWorkspace, workspace).set(key, a);
      mapOf(this.byAssignee, key).set(workspace, a);
    }
    this.changed();
  }

  organizationGrants(): OrganizationAssignment[] {
    return [...this.organization.keys()].sort(cmp).map((k) => this.organization.get(k)!);
  }

  organizationOf(assignee: Assignee): OrganizationPermission[] {
    return this.organization.get(assigneeKey(assignee))?.permissions ?? [];
  }

  setOrganization(assignee: Assignee, permissions: readonly OrganizationPermission[]): void {
    const key = assigneeKey(assignee);
    const clean = permissionSet(permissions);
    if (clean.length === 0) this.organization.delete(key);
    else this.organization.set(key, { assignee: { ...assignee }, permissions: clean });
    this.changed();
  }

  /** A deleted user or group takes its grants with it, as in the service. */
  dropAssignee(assignee: Assignee): void {
    const key = assigneeKey(assignee);
    for (const ws of this.byAssignee.get(key)?.keys() ?? []) this.byWorkspace.get(ws)?.delete(key);
    this.byAssignee.delete(key);
    this.organization.delete(key);
  }

  /** Loads workspaces and grants of a seed; `assigneeExists` checks each named user or group. */
  load(
    seed: { workspaces?: SeedWorkspace[]; organizationPermissions?: SeedOrganizationPermission[] },
    assigneeExists: (a: Assignee) => boolean,
  ): void {
    const list = [...(seed.workspaces ?? [])].sort((a, b) => cmp(a.id, b.id));
    for (const w of list) {
      if (this.workspaces.has(w.id)) throw new Error(`seed: workspace ${w.id} appears twice`);
      this.putWorkspace({ id: w.id, ...optional("name", w.name), ...optional("parent", w.parent) });
    }
    for (const w of list) {
      if (w.parent !== undefined && !this.workspaces.has(w.parent))
        throw new Error(`seed: workspace ${w.id} has unknown parent ${w.parent}: add it to workspaces`);
      if (this.parentCycle(w.id)) throw new Error(`seed: workspace ${w.id} is part of a parent cycle`);
      for (const [i, g] of (w.permissions ?? []).entries()) {
        const where = `seed: workspaces ${w.id} permissions[${i}]`;
        const assignee = seedAssignee(g, where, assigneeExists);
        this.setGrant(w.id, assignee, {
          permissions: seedPermissions(g.permissions, isWorkspacePermission, where),
          hierarchy: seedPermissions(g.hierarchy, isWorkspacePermission, where),
        });
      }
    }
    for (const [i, o] of (seed.organizationPermissions ?? []).entries()) {
      const where = `seed: organizationPermissions[${i}]`;
      this.setOrganization(
        seedAssignee(o, where, assigneeExists),
        seedPermissions(o.permissions, isOrganizationPermission, where),
      );
    }
  }

  private parentCycle(id: string): boolean {
    const seen = new Set<string>();
    for (let at = this.workspaces.get(id)?.parent; at !== undefined; at = this.workspaces.get(at)?.parent) {
      if (at === id || seen.has(at)) return true;
      seen.add(at);
    }
    return false;
  }

  /** The seed form of the store, sorted; empty lists are left out so an old store file stays as it was. */
  snapshot(): { workspaces?: SeedWorkspace[]; organizationPermissions?: SeedOrganizationPermission[] } {
    const workspaces = this.workspaceIds.all().map((id) => {
      const w = this.workspaces.get(id)!;
      const grants = this.grantsOn(id).map((a) => ({
        ...seedAssigneeOf(a.assignee),
        permissions: [...a.permissions],
        hierarchy: [...a.hierarchy],
      }));
      return { ...w, ...(grants.length > 0 ? { permissions: grants } : {}) };
    });
    const org = this.organizationGrants().map((o) => ({
      ...seedAssigneeOf(o.assignee),
      permissions: [...o.permissions],
    }));
    return {
      ...(workspaces.length > 0 ? { workspaces } : {}),
      ...(org.length > 0 ? { organizationPermissions: org } : {}),
    };
  }
}

function mapOf<V>(m: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let inner = m.get(key);
  if (!inner) m.set(key, (inner = new Map()));
  return inner;
}

const optional = <K extends string, V>(key: K, v: V | undefined): { [P in K]?: V } =>
  (v === undefined ? {} : { [key]: v }) as { [P in K]?: V };

const seedAssigneeOf = (a: Assignee): SeedAssignee =>
  a.type === "user" ? { user: a.id } : { userGroup: a.id };

function seedAssignee(g: SeedAssignee, where: string, exists: (a: Assignee) => boolean): Assignee {
  if ((g.user === undefined) === (g.userGroup === undefined))
    throw new Error(`${where}: name exactly one of user or userGroup`);
  const a: Assignee =
    g.user !== undefined ? { type: "user", id: g.user } : { type: "userGroup", id: g.userGroup! };
  if (!exists(a)) throw new Error(`${where}: ${a.type} ${a.id} does not exist: add it to the seed`);
  return a;
}

function seedPermissions<P extends string>(list: unknown, is: (v: string) => v is P, where: string): P[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new Error(`${where}: permissions must be a list`);
  for (const p of list)
    if (typeof p !== "string" || !is(p)) throw new Error(`${where}: ${String(p)} is not a permission`);
  return permissionSet(list as P[]);
}
