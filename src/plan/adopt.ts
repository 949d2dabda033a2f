/**
 * Adopting what exists (issue 38, point 6). An organization that already has people (mappings made
 * by hand, by an older file, by the service's just-in-time provisioning) keeps them under ids of its
 * own. A person whose id usersync derives (from the email, or from a directory's rule) and who has
 * no mapping under that id, but whose login is already held by exactly one mapping, is that
 * mapping's person: the plan keeps the mapping's id and updates the rest, and says so.
 *
 * The login is the person's `authenticationId` (external users) or the credentials of their email
 * (built-in users). An id a person wrote down is never replaced: such a row meets the existing
 * mapping as a conflict, as before. Two mappings holding one login stay a conflict.
 */
import type { DesiredState, DesiredUser } from "../desired/types.js";
import { lower, otherHolders, type PlanContext } from "./context.js";
import { mappingKey, notice } from "./steps.js";

/**
 * Rewrites the context's desired state so adopted people carry their mapping's id; returns how
 * many were adopted. The input state is not changed (it may be shared by several targets).
 */
export function adoptExistingMappings(ctx: PlanContext): number {
  const { desired, idx } = ctx;
  let adopted: Map<DesiredUser, string> | undefined;
  let desiredIds: Set<string> | undefined;
  const taken = new Set<string>();
  for (const d of desired.users) {
    if (!d.idDerived || idx.mappingPos.has(d.id)) continue;
    const auth = loginOf(ctx, d);
    if (auth === undefined) continue;
    const holders = otherHolders(idx, auth, undefined);
    // None: a new person. Several: a conflict the planner reports as it always did.
    if (holders.length !== 1) continue;
    const id = holders[0]!;
    desiredIds ??= new Set(desired.users.map((u) => u.id));
    // Another row of the desired state names that id, or another person took it first: the
    // planner reports the conflict; adopting would make two rows one mapping.
    if (desiredIds.has(id) || taken.has(id)) continue;
    taken.add(id);
    (adopted ??= new Map()).set(d, id);
  }
  if (adopted === undefined) return 0;
  ctx.desired = withAdoptedIds(desired, adopted);
  for (const [d, id] of adopted)
    notice(ctx, {
      kind: "adopted",
      target: mappingKey(id),
      message: `${d.email}: its login is already mapped as '${id}', so that mapping is kept under its id (usersync would have named it '${d.id}') and updated as the desired state says`,
    });
  return adopted.size;
}

/** The login a desired user signs in with, when the organization has it already. */
function loginOf(ctx: PlanContext, d: DesiredUser): string | undefined {
  if (d.identity === "external") return d.authenticationId?.trim() || undefined;
  return ctx.idx.idpByEmail.get(lower(d.email))?.authenticationId;
}

function withAdoptedIds(desired: DesiredState, adopted: ReadonlyMap<DesiredUser, string>): DesiredState {
  const users = desired.users.map((u) => {
    const id = adopted.get(u);
    return id === undefined ? u : { ...u, id };
  });
  // Spread keeps the non-enumerable members out; the state is only read by the planner from here.
  return { ...desired, users };
}
