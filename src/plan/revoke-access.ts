/**
 * `deletions: revoke` (docs/configuration.md, "What `revoke` does"; DESIGN section 5): a leaver
 * keeps no access. Whatever way they signed in (a built-in login, the organization's OIDC
 * provider, a directory account that may still work), they leave every group usersync manages
 * membership of (one `updateMapping`, marked `revokesAccess`), lose their managed direct grants
 * (permissions.ts), then their managed data filters (access/data-filters.ts, ordered after the
 * access is gone), and their own API tokens are deleted (`deleteApiToken`); a built-in login is
 * deleted besides (deletions.ts). The mapping stays, so a returner is the same user again. The
 * revoke counts as one deletion per person for `maxDeletes`, all or nothing with the others.
 */
import type { Identity } from "../desired/types.js";
import type { IdpUser, Mapping } from "../service/types.js";
import type { PlanContext } from "./context.js";
import { cleanMapping } from "./mapping-step.js";
import { base, copyMapping, mappingKey, notice, profileMapping, stepId } from "./steps.js";
import type { DeleteApiTokenStep, UpdateMappingStep } from "./types.js";

/**
 * Whether a leaver whose plan deletes no built-in login may still sign in (the words of the
 * revoke say so): their login stays (another mapping or a present row holds it), their row says
 * `identity: external`, or (no row) their mapping points at no built-in login in an organization
 * that signs in through an OIDC provider or has no built-in one. A mapping with no login id signs
 * nobody in. Where the service cannot say how it signs people in (legacy), only the row can tell.
 */
export function signsInElsewhere(
  ctx: PlanContext,
  o: { mapping: Mapping; linked: IdpUser | undefined; identity: Identity | undefined },
): boolean {
  if (o.mapping.authenticationId === undefined) return false;
  if (o.linked !== undefined) return true;
  if (o.identity !== undefined) return o.identity === "external";
  return ctx.actual.builtinIdp === false || ctx.actual.signIn === "oidc";
}

/**
 * The words every format shows for the revoke (also the step's reason): how the leaver could
 * still sign in, or that their built-in login goes with the same plan.
 */
export function revokeWords(o: {
  linked: IdpUser | undefined;
  loginDeleted: boolean;
  elsewhere: boolean;
}): string {
  const why = o.loginDeleted
    ? "their built-in login is deleted"
    : o.linked
      ? "their login stays: another user holds it"
      : o.elsewhere
        ? "signs in through the identity provider"
        : "no login left";
  return `access revoked (${why}: the mapping stays, groups, permissions and API tokens removed)`;
}

function groupsStep(ctx: PlanContext, m: Mapping, keptGroups: string[], reason: string): UpdateMappingStep {
  return {
    ...base({ kind: "updateMapping", target: m.id, reason, touches: [mappingKey(m.id)] }),
    before: cleanMapping(m),
    after: profileMapping(ctx, { ...copyMapping(cleanMapping(m)), groups: keptGroups }),
    revokesAccess: true,
  };
}

/** One of the leaver's own API tokens: deleted with their access (its id only, never its value). */
function tokenStep(userId: string, tokenId: string, reason: string): DeleteApiTokenStep {
  return {
    ...base({
      kind: "deleteApiToken",
      target: `${userId}/${tokenId}`,
      reason,
      touches: [mappingKey(userId)],
    }),
    userId,
    tokenId,
  };
}

/**
 * Plans the revoke of one leaver's access: protected and out-of-scope people get a notice and
 * nothing else. The groups step is made only when groups change; grants and filters follow in
 * their planners, which read `ctx.accessRevokes`.
 */
export function planAccessRevoke(
  ctx: PlanContext,
  o: {
    mapping: Mapping;
    /** What access/leaver-access.ts found: the groups the mapping keeps. */
    access: { keptGroups: string[]; tokens: readonly string[] };
    names: Array<string | undefined>;
    inScope: boolean;
    reason: string;
  },
): void {
  const { mapping: m } = o;
  const target = mappingKey(m.id);
  if (ctx.safety.isProtected(o.names) || !o.inScope) {
    const why = ctx.safety.isProtected(o.names) ? "protected by policy" : "outside policy.scope";
    notice(ctx, {
      kind: why.startsWith("protected") ? "protected" : "refused",
      target,
      message: `${why}; not planned: access revoke`,
    });
    return;
  }
  ctx.accessRevokes.set(m.id, o.reason);
  for (const tokenId of o.access.tokens) {
    const step = tokenStep(m.id, tokenId, o.reason);
    ctx.steps.set(step.id, step);
    ctx.userDeletions.set(step.id, target);
  }
  if (o.access.keptGroups.length === m.groups.length) return;
  const step = groupsStep(ctx, m, o.access.keptGroups, o.reason);
  ctx.steps.set(step.id, step);
  ctx.userDeletions.set(step.id, target);
}

/**
 * The deletion guard tripped: the revokes are held back whole. A leaver whose revoke has no
 * groups step (only grants or filters to lose) gets a held-back one that changes nothing, so the
 * plan names them among what the guard holds back and the run ends with exit 3; their grants and
 * filters are not planned (permissions.ts, access/data-filters.ts read `accessRevokesHeld`).
 */
export function holdAccessRevokes(ctx: PlanContext): void {
  ctx.accessRevokesHeld = true;
  for (const [id, reason] of ctx.accessRevokes) {
    const i = ctx.idx.mappingPos.get(id);
    const m = i === undefined ? undefined : ctx.actual.mappings[i];
    if (m === undefined) continue;
    const existing = ctx.steps.get(stepId("updateMapping", id));
    if (existing) {
      existing.status = "heldBack";
      continue;
    }
    const step = groupsStep(ctx, m, [...m.groups], reason);
    step.status = "heldBack";
    ctx.steps.set(step.id, step);
  }
}
