/**
 * The organization's memberships once the plan's planned steps are done (held-back steps never
 * run), and while it runs (now or after: a person may be in either until their step lands). Read
 * from the steps, not the desired state, so what the guards hold back, what is out of scope and
 * what bulk membership moves are all counted as the executor will leave them.
 */
import type { PlanContext } from "../context.js";

export interface Memberships {
  /** A user's own groups after the plan; undefined when the user will not exist. */
  userAfter(id: string): readonly string[] | undefined;
  /** A group's parents after the plan; undefined when the group will not exist. */
  parentsAfter(id: string): readonly string[] | undefined;
  /** The planned steps that may take a user's access away: their mapping's update or deletion, a removeMembers. */
  userRemovals(id: string): readonly string[];
  /** The planned steps that may take a group's access away: its update (parents) or deletion. */
  groupRemovals(id: string): readonly string[];
}

const push = <K, V>(map: Map<K, V[]>, key: K, value: V): void => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

export function memberships(ctx: PlanContext): Memberships {
  const users = new Map<string, string[] | undefined>();
  const groups = new Map<string, string[] | undefined>();
  const userSteps = new Map<string, string[]>();
  const groupSteps = new Map<string, string[]>();
  const userNow = (id: string): string[] | undefined => {
    if (users.has(id)) return users.get(id);
    const i = ctx.idx.mappingPos.get(id);
    return i === undefined ? undefined : [...(ctx.actual.mappings[i]?.groups ?? [])];
  };
  for (const s of ctx.steps.values()) {
    if (s.status !== "planned") continue;
    switch (s.kind) {
      case "createMapping":
      case "updateMapping":
        users.set(s.target, [...s.after.groups]);
        if (s.kind === "updateMapping") push(userSteps, s.target, s.id);
        break;
      case "deleteMapping":
        users.set(s.target, undefined);
        push(userSteps, s.target, s.id);
        break;
      case "addMembers":
      case "removeMembers":
        for (const m of s.members) {
          const set = new Set(userNow(m) ?? []);
          if (s.kind === "addMembers") set.add(s.target);
          else set.delete(s.target);
          users.set(m, [...set]);
          if (s.kind === "removeMembers") push(userSteps, m, s.id);
        }
        break;
      case "createGroup":
      case "updateGroup":
        groups.set(s.target, [...s.after.parents]);
        if (s.kind === "updateGroup") push(groupSteps, s.target, s.id);
        break;
      case "deleteGroup":
        groups.set(s.target, undefined);
        push(groupSteps, s.target, s.id);
        break;
      default:
        break;
    }
  }
  return {
    userAfter: userNow,
    parentsAfter: (id) => (groups.has(id) ? groups.get(id) : ctx.idx.groupById.get(id)?.parents),
    userRemovals: (id) => userSteps.get(id) ?? [],
    groupRemovals: (id) => groupSteps.get(id) ?? [],
  };
}
