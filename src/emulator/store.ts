/**
 * The emulator's in-memory store, shared by both API profiles. It keeps the indexes that make
 * requests cheap at 100,000 mappings: sorted ids for paging, mappings by authenticationId,
 * members and children per group (to refuse deleting a group in use), IdP users by lower-cased email.
 */
import { createHash } from "node:crypto";
import { AccessStore } from "./access-store.js";
import { FilterStore } from "./filter-store.js";
import { SortedIds } from "./sorted-ids.js";
import type {
  EmulatorSeed,
  EmulatorState,
  StoredIdpUser,
  EmulatorOrganizationSetting,
  EmulatorSignIn,
  SeedIdentityProvider,
} from "./types.js";

export interface MappingRec {
  id: string;
  authenticationId?: string;
  firstname?: string;
  lastname?: string;
  email?: string;
  /** Group ids in the order they were sent. */
  groups: string[];
}

export interface GroupRec {
  id: string;
  name?: string;
  parents: string[];
}

/** The emulated organization's id unless EmulatorOptions.organizationId names another. */
export const ORGANIZATION_ID = "emulated-org";

export class Store {
  readonly idp = new Map<string, StoredIdpUser>();
  readonly mappings = new Map<string, MappingRec>();
  readonly groups = new Map<string, GroupRec>();
  readonly mappingIds = new SortedIds();
  readonly groupIds = new SortedIds();
  private readonly byAuthId = new Map<string, Set<string>>();
  private readonly members = new Map<string, Set<string>>();
  private readonly children = new Map<string, Set<string>>();
  private readonly authIds = new Set<string>();
  /** Counter behind generated authenticationIds; persisted so ids stay unique across restarts. */
  authCounter = 0;
  /** Bumped on every write; the persister compares it to know what is saved. */
  revision = 0;
  /** Workspaces and permissions (access-store.ts). */
  readonly access = new AccessStore(() => void this.revision++);
  /** The organization's id (EmulatorOptions.organizationId); not part of the persisted store. */
  organizationId = ORGANIZATION_ID;
  /** The organization's sign-in settings (EmulatorOptions.signIn); not part of the persisted store. */
  signIn: EmulatorSignIn | undefined;
  /** The organization's settings (EmulatorOptions.organizationSettings); not part of the persisted store. */
  organizationSettings: EmulatorOrganizationSetting[] = [];
  /** The organization's identity providers, by id (the seed's, and signIn's); not part of the persisted store. */
  identityProviders: SeedIdentityProvider[] = [];
  /** Each user's API tokens, by user id (api-token-routes.ts); they go with the user. */
  private readonly apiTokens = new Map<string, Set<string>>();
  /** User data filters (filter-store.ts). */
  readonly filters = new FilterStore(() => void this.revision++);

  // ---- IdP users ----------------------------------------------------------------------------

  getIdp(email: string): StoredIdpUser | undefined {
    return this.idp.get(email.toLowerCase());
  }

  /** Random-looking but deterministic, never equal to an email, unique in this store. */
  newAuthenticationId(): string {
    for (;;) {
      this.authCounter++;
      const id = createHash("sha256")
        .update(`usersync-emulator:${this.authCounter}`)
        .digest("base64url")
        .slice(0, 22);
      if (!this.authIds.has(id)) return id;
    }
  }

  putIdp(user: StoredIdpUser): void {
    this.idp.set(user.email.toLowerCase(), user);
    this.authIds.add(user.authenticationId);
    this.revision++;
  }

  deleteIdp(email: string): boolean {
    const key = email.toLowerCase();
    const user = this.idp.get(key);
    if (!user) return false;
    this.idp.delete(key);
    this.authIds.delete(user.authenticationId);
    this.revision++;
    return true;
  }

  // ---- mappings -----------------------------------------------------------------------------

  mappingIdsByAuthId(authenticationId: string): ReadonlySet<string> {
    return this.byAuthId.get(authenticationId) ?? new Set();
  }

  putMapping(rec: MappingRec): void {
    const old = this.mappings.get(rec.id);
    if (old) this.unindexMapping(old);
    else this.mappingIds.add(rec.id);
    this.mappings.set(rec.id, rec);
    if (rec.authenticationId !== undefined) addTo(this.byAuthId, rec.authenticationId, rec.id);
    for (const g of rec.groups) addTo(this.members, g, rec.id);
    this.revision++;
  }

  deleteMapping(id: string): boolean {
    const old = this.mappings.get(id);
    if (!old) return false;
    this.unindexMapping(old);
    this.mappings.delete(id);
    this.mappingIds.remove(id);
    this.access.dropAssignee({ type: "user", id });
    this.filters.dropAssignee({ type: "user", id });
    this.apiTokens.delete(id);
    this.revision++;
    return true;
  }

  /** The user's token ids, made empty on first use. */
  tokensOf(user: string): Set<string> {
    let set = this.apiTokens.get(user);
    if (set === undefined) this.apiTokens.set(user, (set = new Set()));
    return set;
  }

  private unindexMapping(rec: MappingRec): void {
    if (rec.authenticationId !== undefined) removeFrom(this.byAuthId, rec.authenticationId, rec.id);
    for (const g of rec.groups) removeFrom(this.members, g, rec.id);
  }

  // ---- groups -------------------------------------------------------------------------------

  membersOf(groupId: string): ReadonlySet<string> {
    return this.members.get(groupId) ?? new Set();
  }

  memberCount(groupId: string): number {
    return this.members.get(groupId)?.size ?? 0;
  }

  childCount(groupId: string): number {
    return this.children.get(groupId)?.size ?? 0;
  }

  /** True when making `parents` the parents of `groupId` would close a cycle. */
  wouldCycle(groupId: string, parents: readonly string[]): boolean {
    const seen = new Set<string>();
    const stack = [...parents];
    while (stack.length > 0) {
      const g = stack.pop() as string;
      if (g === groupId) return true;
      if (seen.has(g)) continue;
      seen.add(g);
      stack.push(...(this.groups.get(g)?.parents ?? []));
    }
    return false;
  }

  putGroup(rec: GroupRec): void {
    const old = this.groups.get(rec.id);
    if (old) for (const p of old.parents) removeFrom(this.children, p, old.id);
    else this.groupIds.add(rec.id);
    this.groups.set(rec.id, rec);
    for (const p of rec.parents) addTo(this.children, p, rec.id);
    this.revision++;
  }

  deleteGroup(id: string): boolean {
    const old = this.groups.get(id);
    if (!old) return false;
    for (const p of old.parents) removeFrom(this.children, p, id);
    this.groups.delete(id);
    this.groupIds.remove(id);
    this.access.dropAssignee({ type: "userGroup", id });
    this.filters.dropAssignee({ type: "userGroup", id });
    this.revision++;
    return true;
  }

  // ---- seed and snapshot --------------------------------------------------------------------

  /** Loads a seed; throws an Error naming the entry for references that cannot be satisfied. */
  load(seed: EmulatorSeed & { authCounter?: number }): void {
    if (typeof seed.authCounter === "number") this.authCounter = seed.authCounter;
    for (const u of seed.idpUsers ?? []) {
      if (this.getIdp(u.email))
        throw new Error(`seed: idpUsers has ${u.email} twice (emails are case-insensitive)`);
      const user: StoredIdpUser = {
        email: u.email,
        displayName: u.displayName,
        authenticationId: u.authenticationId ?? this.newAuthenticationId(),
      };
      if (u.password !== undefined) user.password = u.password;
      this.putIdp(user);
    }
    const groups = [...(seed.groups ?? [])].sort((a, b) => cmp(a.id, b.id));
    for (const g of groups) {
      if (this.groups.has(g.id)) throw new Error(`seed: group ${g.id} appears twice`);
      this.putGroup(withOptional({ id: g.id, parents: [...(g.parents ?? [])] }, "name", g.name));
    }
    for (const g of groups) {
      for (const p of g.parents ?? []) {
        if (!this.groups.has(p))
          throw new Error(`seed: group ${g.id} has unknown parent ${p}: add it to groups`);
      }
      if (this.wouldCycle(g.id, g.parents ?? []))
        throw new Error(`seed: group ${g.id} is part of a parent cycle`);
    }
    // Inserting in id order keeps every index insert on the append fast path (100,000 seeds load in ms).
    const mappings = [...(seed.mappings ?? [])].sort((a, b) => cmp(a.id, b.id));
    for (const m of mappings) {
      if (this.mappings.has(m.id)) throw new Error(`seed: mapping ${m.id} appears twice`);
      for (const g of m.groups ?? []) {
        if (!this.groups.has(g))
          throw new Error(`seed: mapping ${m.id} references unknown group ${g}: add it to groups`);
      }
      const rec: MappingRec = { id: m.id, groups: [...new Set(m.groups ?? [])] };
      for (const key of ["authenticationId", "firstname", "lastname", "email"] as const) {
        const v = m[key];
        if (v !== undefined) rec[key] = v;
      }
      this.putMapping(rec);
    }
    const assignee = (a: { type: string; id: string }): boolean =>
      (a.type === "user" ? this.mappings : this.groups).has(a.id);
    this.access.load(seed, assignee);
    this.filters.load(seed.dataFilters ?? [], {
      workspace: (id) => this.access.workspaces.has(id),
      assignee,
    });
    for (const t of seed.apiTokens ?? []) {
      if (!this.mappings.has(t.user)) throw new Error(`seed: apiToken ${t.id} of unknown user ${t.user}`);
      this.tokensOf(t.user).add(t.id);
    }
  }

  /** A sorted deep copy; IdP users carry their stored password (for tests only, never served). */
  snapshot(): EmulatorState {
    const idpUsers = [...this.idp.values()]
      .map((u) => ({ ...u }))
      .sort((a, b) => cmp(a.email.toLowerCase(), b.email.toLowerCase()));
    const mappings = this.mappingIds.all().map((id) => {
      const m = this.mappings.get(id) as MappingRec;
      return { ...m, groups: [...m.groups].sort(cmp) };
    });
    const groups = this.groupIds.all().map((id) => {
      const g = this.groups.get(id) as GroupRec;
      return { ...g, parents: [...g.parents].sort(cmp) };
    });
    const dataFilters = this.filters.snapshot();
    const apiTokens = [...this.apiTokens]
      .flatMap(([user, ids]) => [...ids].map((id) => ({ user, id })))
      .sort((a, b) => cmp(a.user, b.user) || cmp(a.id, b.id));
    return {
      idpUsers,
      mappings,
      groups,
      ...this.access.snapshot(),
      ...(dataFilters.length > 0 ? { dataFilters } : {}),
      ...(apiTokens.length > 0 ? { apiTokens } : {}),
    };
  }
}

export const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Sets `obj[key] = value` only when value is defined (exactOptionalPropertyTypes). */
export function withOptional<T extends object, K extends string, V>(
  obj: T,
  key: K,
  value: V | undefined,
): T & { [P in K]?: V } {
  if (value !== undefined) (obj as Record<string, unknown>)[key] = value;
  return obj as T & { [P in K]?: V };
}

function addTo(index: Map<string, Set<string>>, key: string, value: string): void {
  let set = index.get(key);
  if (!set) index.set(key, (set = new Set()));
  set.add(value);
}

function removeFrom(index: Map<string, Set<string>>, key: string, value: string): void {
  const set = index.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) index.delete(key);
}
