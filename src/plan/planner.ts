/**
 * plan(desired, actual, policy, profile) → Plan. Pure and deterministic: no I/O, no clock, no
 * randomness; the same inputs (in any order) give byte-identical JSON. The rules are written
 * down in docs/plan-format.md, "Planning rules".
 */
import type { DesiredState } from "../desired/types.js";
import type { ActualState, ApiProfile, JitProvisioning } from "../service/types.js";
import { compareStrings, makeContext, mappingOf, type PlanContext } from "./context.js";
import { planAbsentUser, planUnlisted } from "./deletions.js";
import { defaultLimits, estimate, type Limits } from "./estimate.js";
import {
  ABSENT,
  fingerprintGroup,
  fingerprintIdpUser,
  fingerprintInput,
  fingerprintMapping,
  fingerprintFilters,
  fingerprintGrant,
  grantsByKey,
} from "./fingerprint.js";
import { managedGroupIds, planGroupPrune, planGroups } from "./groups.js";
import { planGrace, type GraceInput } from "./grace.js";
import { planBulkMembership } from "./bulk.js";
import { applyDeleteGuard } from "./guard.js";
import { parseObjectKey, verbOf } from "./kinds.js";
import { orderSteps } from "./order.js";
import { planPermissions } from "./permissions.js";
import { planDataFilters } from "./access/data-filters.js";
import type { Policy } from "./policy.js";
import { idpKey, mappingKey, notice } from "./steps.js";
import { PLAN_FORMAT_VERSION, type Notice, type Plan, type PlanCounts, type Step } from "./types.js";
import { planPresentUser } from "./users.js";
import { adoptExistingMappings } from "./adopt.js";
import { applyDates } from "./dates.js";
import { applyRevertGuard, type RecentInput } from "./reverts.js";

export interface PlanInput {
  desired: DesiredState;
  actual: ActualState;
  policy: Policy;
  profile: ApiProfile;
  limits?: Limits;
  /** Required with `policy.revokeAfter`: the time and the state file's record of earlier runs. */
  grace?: GraceInput;
  /**
   * A targeted listing (only the people a changes-only read touched): the managed users of the last
   * whole listing, so a percentage guard counts the organization, not the few people listed.
   */
  knownManagedUsers?: number;
  /** With `policy.revertWindow`: the run's time and what recent applies changed (reverts.ts). */
  recent?: RecentInput;
  /** The run's day (YYYY-MM-DD) that start and end dates are compared with (dates.ts). */
  today?: string;
}

export function plan(given: PlanInput): Plan {
  const { desired, dates } = applyDates(given.desired, given.today);
  const input = { ...given, desired };
  const ctx = makeContext(input);
  adoptExistingMappings(ctx);
  planGroups(ctx);
  for (const d of ctx.desired.users) {
    if (d.state === "absent") planAbsentUser(ctx, d);
    else planPresentUser(ctx, d);
  }
  reportSharedAuthenticationIds(ctx);
  const managedUsers = Math.max(planUnlisted(ctx), input.knownManagedUsers ?? 0);
  planGroupPrune(ctx);
  const deleteGuard = applyDeleteGuard(ctx, managedUsers);
  const { revertWindow, allowReverts } = input.policy;
  // Leavers are deleted on purpose, whoever created them: those due after policy.revokeAfter, and
  // those the source marks gone (a row absent, an account disabled, past its end date).
  const due = new Set(ctx.grace?.due.map((p) => p.target));
  for (const d of ctx.desired.users)
    if (d.state === "absent") for (const key of [mappingKey(d.id), idpKey(d.email)]) due.add(key);
  const reverts = applyRevertGuard(ctx.steps.values(), input.recent, revertWindow, allowReverts, due);
  planBulkMembership(ctx);
  const permissionGuard = planPermissions(ctx);
  const dataFilterGuard = planDataFilters(ctx);
  const steps = orderSteps(ctx);
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    profile: input.profile,
    mode: input.policy.mode,
    membership: input.policy.membership,
    deletions: input.policy.deletions,
    inputFingerprint: fingerprintInput(input),
    objects: touchedObjects(ctx, steps),
    steps,
    notices: ctx.notices.sort(compareNotices),
    counts: countSteps(steps),
    deleteGuard,
    ...(permissionGuard !== undefined ? { permissionGuard } : {}),
    ...(dataFilterGuard !== undefined ? { dataFilterGuard } : {}),
    estimate: estimate(steps, input.limits ?? defaultLimits),
    ...(ctx.keptByMode > 0 ? { keptByMode: ctx.keptByMode } : {}),
    ...(ctx.conflicts > 0 ? { conflicts: ctx.conflicts } : {}),
    ...(ctx.accessRevokes.size > 0
      ? { accessRevoked: [...ctx.accessRevokes.keys()].sort(compareStrings) }
      : {}),
    ...(input.actual.jit ? { jit: jitOf(ctx, input.actual.jit) } : {}),
    ...(ctx.grace ? { grace: planGrace(ctx.grace, input.policy.revokeAfter?.text ?? "") } : {}),
    ...(dates ? { dates } : {}),
    ...(reverts ? { reverts } : {}),
  };
}

/** The JIT settings that are on, and the groups they name that the desired state manages too. */
function jitOf(ctx: PlanContext, jit: JitProvisioning): NonNullable<Plan["jit"]> {
  const managed = managedGroupIds(ctx.desired);
  return { settings: jit.settings, sharedGroups: jit.groups.filter((g) => managed.has(g)) };
}

/** Existing mappings sharing one authenticationId: only one of them can log in. */
function reportSharedAuthenticationIds(ctx: PlanContext): void {
  for (const [, holders] of ctx.idx.sharedAuth) {
    const ids = holders.map((m) => m.id).sort(compareStrings);
    const message = `mappings ${ids.join(", ")} share one authenticationId; only one of them can log in`;
    notice(ctx, { kind: "conflict", target: mappingKey(ids[0] ?? ""), message });
  }
}

function compareNotices(a: Notice, b: Notice): number {
  return (
    compareStrings(a.kind, b.kind) ||
    compareStrings(a.target, b.target) ||
    compareStrings(a.message, b.message)
  );
}

export function countSteps(steps: readonly Step[]): PlanCounts {
  const counts: PlanCounts = { create: 0, update: 0, delete: 0, heldBack: 0 };
  for (const s of steps) {
    if (s.status === "heldBack") counts.heldBack++;
    else counts[verbOf(s.kind)]++;
  }
  return counts;
}

/**
 * The fingerprint of every object a step touches, in the order the (sorted) steps first touch
 * them: deterministic without sorting 100k keys again. Computed only for touched objects.
 */
function touchedObjects(ctx: PlanContext, steps: readonly Step[]): Record<string, string> {
  const out = new Map<string, string>();
  const { idpByEmail, groupById } = ctx.idx;
  const grants = ctx.actual.permissions ? grantsByKey(ctx.actual.permissions) : undefined;
  const filters = ctx.actual.dataFilters ? fingerprintFilters(ctx.actual) : undefined;
  for (const s of steps)
    for (const key of s.touches) {
      if (out.has(key)) continue;
      const ref = parseObjectKey(key);
      const idp = ref?.kind === "idp" ? idpByEmail.get(ref.id) : undefined;
      const mapping = ref?.kind === "mapping" ? mappingOf(ctx, ref.id) : undefined;
      const group = ref?.kind === "group" ? groupById.get(ref.id) : undefined;
      const grant =
        ref?.kind === "permission" || ref?.kind === "orgPermission" ? grants?.get(key) : undefined;
      if (grant !== undefined) {
        out.set(key, fingerprintGrant(grant));
        continue;
      }
      if (ref?.kind === "dataFilter") {
        out.set(key, filters?.get(key) ?? ABSENT);
        continue;
      }
      out.set(
        key,
        idp
          ? fingerprintIdpUser(idp)
          : mapping
            ? fingerprintMapping(mapping)
            : group
              ? fingerprintGroup(group)
              : ABSENT,
      );
    }
  return Object.fromEntries(out);
}
