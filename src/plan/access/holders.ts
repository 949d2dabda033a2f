/**
 * Who may carry access (permissions, data filters): the one rule for a group and the one rule for
 * a user of the desired state, shared by both, so a person refused for one is refused for the other
 * with the same words. A user may carry access when they are in `policy.scope` (the row, and the
 * mapping and its linked login as they are), not protected (by id, by email, by the mapping's or
 * the linked login's email; the caller is protected through its mapping), and mapped or mapped by
 * this plan. Another organization's people are outside the scope by the same test: their login's
 * email domain is not one of `policy.scope.emailDomains`.
 */
import type { DesiredUser } from "../../desired/types.js";
import { linkedIdp, mappingOf, type PlanContext } from "../context.js";
import { stepId } from "../steps.js";

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

/** The step that creates the user's mapping in this plan, if any. */
export function mappingCreatedBy(ctx: PlanContext, id: string): string | undefined {
  const created = stepId("createMapping", id);
  return ctx.steps.has(created) ? created : undefined;
}

/** Why the user's access is not planned (protected, out of scope, not mapped and not mapped here), or undefined. */
export function userRefusal(
  ctx: PlanContext,
  u: DesiredUser,
  createdBy: string | undefined,
): string | undefined {
  const m = mappingOf(ctx, u.id);
  const linked = linkedIdp(ctx.idx, m);
  if (ctx.safety.isProtected([u.id, u.email, m?.email, linked?.email])) return "protected by policy";
  const inScope =
    ctx.safety.desiredInScope(u, u.groups ?? m?.groups ?? []) &&
    (m === undefined || ctx.safety.mappingInScope(m, linked));
  if (!inScope) return "outside policy.scope";
  if (m === undefined && createdBy === undefined)
    return "the user is not mapped and this plan does not map it";
  return undefined;
}
