/**
 * Who may carry access (permissions, data filters): the one rule for a group of the desired state,
 * shared by both, so a group refused for one is refused for the other with the same words.
 */
import type { PlanContext } from "../context.js";

/** Why the group's access is not planned (protected, out of scope, missing and not created), or undefined. */
export function groupRefusal(
  ctx: PlanContext,
  id: string,
  createdBy: string | undefined,
): string | undefined {
  if (ctx.safety.groupProtected(id)) return "protected by policy";
  if (!ctx.safety.groupInScope(id)) return "outside policy.scope";
  if (!ctx.idx.groupById.has(id) && createdBy === undefined)
    return "the group is missing and this plan does not create it";
  return undefined;
}
