/**
 * Step ids and the one gate every user's steps pass through: a user's steps are planned all
 * together or not at all (protected → `protected` notice, out of scope → `refused` notice).
 */
import type { IdpUser, Mapping } from "../service/types.js";
import { lower, type PlanContext } from "./context.js";
import { groupKey, idpKey, mappingKey } from "./fingerprint.js";
import type { Notice, PlannedMapping, Step, StepKind } from "./types.js";

export const stepId = (kind: StepKind, target: string): string => `${kind}:${target}`;

/** Credentials steps are named by the lower-cased email, the IdP's case-insensitive key. */
export const credentialsTarget = lower;

/** The fields every step has, in the order they are serialised. */
export function base<K extends StepKind>(input: {
  kind: K;
  target: string;
  reason: string;
  touches: string[];
  dependsOn?: string[];
}) {
  return {
    id: stepId(input.kind, input.target),
    kind: input.kind,
    target: input.target,
    status: "planned" as "planned" | "heldBack",
    dependsOn: input.dependsOn ?? [],
    reason: input.reason,
    touches: input.touches,
  };
}

export { groupKey, idpKey, mappingKey };

/** Steps of createGroup for the groups a mapping will be in, that this plan creates. */
export function groupDependencies(ctx: PlanContext, groups: readonly string[]): string[] {
  const deps: string[] = [];
  for (const g of groups) {
    const id = ctx.createdGroups.get(g);
    if (id !== undefined) deps.push(id);
  }
  return deps;
}

/** The mapping's attributes the profile knows, without undefined fields. */
export function profileMapping(ctx: PlanContext, m: PlannedMapping): PlannedMapping {
  return {
    id: m.id,
    ...(m.authenticationId !== undefined ? { authenticationId: m.authenticationId } : {}),
    ...(ctx.profile === "v1" && m.firstname !== undefined ? { firstname: m.firstname } : {}),
    ...(ctx.profile === "v1" && m.lastname !== undefined ? { lastname: m.lastname } : {}),
    ...(ctx.profile === "v1" && m.email !== undefined ? { email: m.email } : {}),
    groups: [...m.groups],
  };
}

export interface UserCommit {
  /** Object key the notices are about, e.g. `mapping:jane` or `idp:jane@example.com`. */
  target: string;
  /** Ids and emails of the user, desired and actual, checked against `protect`. */
  names: Array<string | undefined>;
  inScope: boolean;
  steps: Step[];
  /** Set when the steps delete the user (counts toward maxDeletes); the key names the user. */
  deletes?: { user: string; stepIds: string[] };
}

export function commitUser(ctx: PlanContext, c: UserCommit): void {
  if (c.steps.length === 0) return;
  const what = (): string => c.steps.map((s) => s.kind).join(", ");
  if (ctx.safety.isProtected(c.names)) {
    notice(ctx, {
      kind: "protected",
      target: c.target,
      message: `protected by policy; not planned: ${what()}`,
    });
    return;
  }
  if (!c.inScope) {
    notice(ctx, {
      kind: "refused",
      target: c.target,
      message: `outside policy.scope; not planned: ${what()}`,
    });
    return;
  }
  for (const s of c.steps) if (!ctx.steps.has(s.id)) ctx.steps.set(s.id, s);
  if (c.deletes) for (const id of c.deletes.stepIds) ctx.userDeletions.set(id, c.deletes.user);
}

export function notice(ctx: PlanContext, n: Notice): void {
  ctx.notices.push(n);
}

/** A copy of an actual mapping as PlannedMapping (for `after` = before + changes). */
export function copyMapping(m: Mapping): PlannedMapping {
  return { ...m, groups: [...m.groups] };
}

/** An IdP user with its keys in a fixed order (for `before`). */
export function cleanIdpUser(u: IdpUser): IdpUser {
  return { email: u.email, displayName: u.displayName, authenticationId: u.authenticationId };
}
