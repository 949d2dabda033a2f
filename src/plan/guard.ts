/**
 * `maxDeletes`: an empty, truncated or wrongly filtered file must never wipe an organization.
 * All or nothing: when the plan wants more user deletions than allowed, every deletion step
 * is held back (group deletions too, since pruning assumed the members were gone; access
 * revokes whole, revoke-access.ts); creates and updates stay planned.
 */
import type { PlanContext } from "./context.js";
import { mappingKey } from "./fingerprint.js";
import { holdAccessRevokes } from "./revoke-access.js";
import type { Plan } from "./types.js";

/** A guard's limit: the run's allowance when given, else the count, else the share of `base`. */
export function guardLimit(
  max: { count: number } | { percent: number },
  allow: number | undefined,
  base: number,
): number {
  if (allow !== undefined) return allow;
  if ("count" in max) return max.count;
  // Round down, but never below 1: in an organization of fewer than 10 managed users the
  // default 10% would otherwise round to 0 and hold back every single deletion. "0%" stays 0.
  if (max.percent <= 0) return 0;
  return Math.max(1, Math.floor((max.percent / 100) * base));
}

export const deletionLimit = (ctx: PlanContext, managedUsers: number): number =>
  guardLimit(ctx.policy.maxDeletes, ctx.policy.allowDeletes, managedUsers);

export function applyDeleteGuard(ctx: PlanContext, managedUsers: number): Plan["deleteGuard"] {
  // A leaver whose access is revoked is one person, whatever steps the revoke takes.
  const people = new Set(ctx.userDeletions.values());
  for (const id of ctx.accessRevokes.keys()) people.add(mappingKey(id));
  const wanted = people.size;
  const limit = deletionLimit(ctx, managedUsers);
  if (wanted > limit) {
    for (const id of ctx.userDeletions.keys()) {
      const s = ctx.steps.get(id);
      if (s) s.status = "heldBack";
    }
    for (const s of ctx.steps.values()) if (s.kind === "deleteGroup") s.status = "heldBack";
    holdAccessRevokes(ctx);
  }
  return { limit, wanted, managedUsers };
}
