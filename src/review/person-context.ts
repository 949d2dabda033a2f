/**
 * The context every person of the review is built in (people.ts): the listing and the models,
 * and the caches people of one group set share, so rows of one set share their lists.
 */
import {
  compareIds as cmp,
  effectiveWorkspace,
  reachesWorkspace,
  type OrganizationPermission,
  type WorkspacePermission,
} from "../permissions.js";
import type { AccessModel } from "../plan/access/effective-access.js";
import type { DesiredIndex } from "./desired.js";
import type { ReviewInput } from "./input.js";
import { organizationReasonsOf } from "./organization-reach.js";
import type { AccessReason, EffectiveFilter, OrganizationReason } from "./types.js";

export interface PersonContext {
  input: ReviewInput;
  model: AccessModel;
  names: ReadonlyMap<string, string | undefined>;
  index: DesiredIndex | undefined;
  drift: ReadonlyMap<string, string[]> | undefined;
  orgGrants: ReadonlyMap<string, OrganizationPermission[]>;
  flagReasons(list: AccessReason[]): AccessReason[];
  /** A direct-group set's groups through parents, sorted, with their chains: once per set. */
  groupSet(groups: readonly string[]): { chains: Array<[string, string[]]>; allGroups: string[] };
  flagFilters(list: EffectiveFilter[]): EffectiveFilter[];
  /** Every workspace listed, sorted (organization MANAGE reaches them all). */
  workspaceIds: readonly string[];
  /** The `organization` reasons of a person's organization MANAGE holders, once per distinct list. */
  organizationReasons(holders: readonly OrganizationReason[]): AccessReason[];
  /**
   * Granted permissions as one shared list per distinct set, with what they cover: a million rows
   * share a handful of sets, and a list per row was a third of a large review's memory.
   */
  permissions(granted: WorkspacePermission[]): PermissionLists;
}

export interface PermissionLists {
  granted: WorkspacePermission[];
  effective: WorkspacePermission[];
  reaches: boolean;
}

/** The context every person is built in: the models, and the caches people of one group set share. */
export function makePersonContext(
  o: Omit<
    PersonContext,
    "groupSet" | "flagReasons" | "flagFilters" | "workspaceIds" | "organizationReasons" | "permissions"
  >,
): PersonContext {
  // Rows of one group set share their lists: flagged once per list, not once per person.
  const flagged = new WeakMap<object, unknown>();
  const once = <T extends object>(list: T, make: (l: T) => T): T => {
    let out = flagged.get(list) as T | undefined;
    if (out === undefined) {
      out = make(list);
      flagged.set(list, out);
    }
    return out;
  };
  const groupSets = new Map<string, { chains: Array<[string, string[]]>; allGroups: string[] }>();
  const orgReasonLists = new Map<string, AccessReason[]>();
  const { model, index } = o;
  return {
    ...o,
    permissions: internPermissions(),
    workspaceIds: [...(o.input.actual.permissions?.workspaces ?? [])].map((w) => w.id).sort(cmp),
    organizationReasons: (holders) => {
      const key = JSON.stringify(holders);
      let list = orgReasonLists.get(key);
      if (!list) orgReasonLists.set(key, (list = organizationReasonsOf(holders)));
      return list;
    },
    groupSet: (groups) => {
      const key = groups.join("\u0000");
      let set = groupSets.get(key);
      if (!set) {
        const chains = [...model.chainsOf(groups)].sort(([a], [b]) => cmp(a, b));
        set = { chains, allGroups: chains.map(([g]) => g) };
        groupSets.set(key, set);
      }
      return set;
    },
    flagReasons: (list) =>
      index
        ? once(list, (l) =>
            l.map((r) => ({
              ...r,
              managed: index.givesGrant(r.holder, r.grantedOn, r.permissions, r.kind === "hierarchy"),
            })),
          )
        : list,
    flagFilters: (list) =>
      index
        ? once(list, (l) =>
            l.map((f) => ({ ...f, desired: index.givesFilter(f.holder, f.workspace, f.maql) })),
          )
        : list,
  };
}

/** One `PermissionLists` per distinct granted list (its names, sorted, joined). */
function internPermissions(): (granted: WorkspacePermission[]) => PermissionLists {
  const known = new Map<string, PermissionLists>();
  return (granted) => {
    const key = granted.join(" ");
    let lists = known.get(key);
    if (!lists) {
      lists = { granted, effective: effectiveWorkspace(granted), reaches: reachesWorkspace(granted) };
      known.set(key, lists);
    }
    return lists;
  };
}
