/**
 * The emulator's user data filters: per workspace, by id, each on one user or one user group.
 * A child workspace sees its ancestors' filters too (listed with `meta.origin` PARENT), as the
 * service's entity API inherits every entity down the workspace hierarchy; an id is unique along
 * that chain. A deleted user or group takes its filters with it.
 */
import { compareIds as cmp, type Assignee } from "../permissions.js";

export interface FilterRec {
  id: string;
  workspace: string;
  maql: string;
  title?: string;
  description?: string;
  tags: string[];
  assignee: Assignee;
}

/** The seed (and snapshot) form: one entry per filter. */
export interface SeedDataFilter {
  workspace: string;
  id: string;
  maql: string;
  title?: string;
  tags?: string[];
  user?: string;
  userGroup?: string;
}

export class FilterStore {
  /** workspace id -> filter id -> filter. */
  private readonly byWorkspace = new Map<string, Map<string, FilterRec>>();

  constructor(private readonly changed: () => void) {}

  get(workspace: string, id: string): FilterRec | undefined {
    return this.byWorkspace.get(workspace)?.get(id);
  }

  /** The workspace's own filters, sorted by id. */
  native(workspace: string): FilterRec[] {
    const m = this.byWorkspace.get(workspace);
    return m ? [...m.keys()].sort(cmp).map((k) => m.get(k)!) : [];
  }

  put(rec: FilterRec): void {
    let m = this.byWorkspace.get(rec.workspace);
    if (!m) this.byWorkspace.set(rec.workspace, (m = new Map()));
    m.set(rec.id, rec);
    this.changed();
  }

  delete(workspace: string, id: string): boolean {
    const done = this.byWorkspace.get(workspace)?.delete(id) ?? false;
    if (done) this.changed();
    return done;
  }

  dropAssignee(a: Assignee): void {
    for (const m of this.byWorkspace.values())
      for (const [id, f] of m) if (f.assignee.type === a.type && f.assignee.id === a.id) m.delete(id);
  }

  load(
    list: readonly SeedDataFilter[],
    exists: { workspace: (id: string) => boolean; assignee: (a: Assignee) => boolean },
  ): void {
    for (const [i, f] of list.entries()) {
      const where = `seed: dataFilters[${i}]`;
      if (!exists.workspace(f.workspace))
        throw new Error(`${where}: workspace ${f.workspace} does not exist`);
      if ((f.user === undefined) === (f.userGroup === undefined))
        throw new Error(`${where}: name exactly one of user or userGroup`);
      const assignee: Assignee =
        f.user !== undefined ? { type: "user", id: f.user } : { type: "userGroup", id: f.userGroup! };
      if (!exists.assignee(assignee))
        throw new Error(`${where}: ${assignee.type} ${assignee.id} does not exist`);
      if (this.get(f.workspace, f.id)) throw new Error(`${where}: ${f.id} appears twice in ${f.workspace}`);
      this.put({
        id: f.id,
        workspace: f.workspace,
        maql: f.maql,
        tags: [...(f.tags ?? [])],
        assignee,
        ...(f.title !== undefined ? { title: f.title } : {}),
      });
    }
  }

  snapshot(): SeedDataFilter[] {
    const out: SeedDataFilter[] = [];
    for (const ws of [...this.byWorkspace.keys()].sort(cmp))
      for (const f of this.native(ws))
        out.push({
          workspace: ws,
          id: f.id,
          maql: f.maql,
          ...(f.title !== undefined ? { title: f.title } : {}),
          ...(f.tags.length > 0 ? { tags: [...f.tags] } : {}),
          ...(f.assignee.type === "user" ? { user: f.assignee.id } : { userGroup: f.assignee.id }),
        });
    return out;
  }
}
