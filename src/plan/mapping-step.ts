/**
 * The create or update of one user's mapping. An update's `after` is the whole mapping
 * (before + changes) because the client sends PUT, which replaces the resource.
 */
import type { DesiredUser } from "../desired/types.js";
import type { Mapping } from "../service/types.js";
import { sameList, sortedUnique, type PlanContext } from "./context.js";
import { base, copyMapping, groupDependencies, mappingKey, profileMapping } from "./steps.js";
import type { CreateMappingStep, FromStep, PlannedMapping, UpdateMappingStep } from "./types.js";

/** The groups the mapping should end up in (see "Planning rules" in docs/plan-format.md). */
export function targetGroups(ctx: PlanContext, d: DesiredUser, m: Mapping | undefined): string[] {
  const current = m?.groups ?? [];
  if (d.groups === undefined) return current;
  // Legacy mappings hold one group: a row that names one replaces it whatever the membership.
  if (ctx.policy.membership === "exact" || (ctx.profile === "legacy" && d.groups.length > 0)) return d.groups;
  return sortedUnique([...current, ...d.groups]);
}

/** Keys in a fixed order, so a plan's JSON does not depend on how the client built its objects. */
export function cleanMapping(m: Mapping): Mapping {
  return {
    id: m.id,
    ...(m.authenticationId !== undefined ? { authenticationId: m.authenticationId } : {}),
    ...(m.firstname !== undefined ? { firstname: m.firstname } : {}),
    ...(m.lastname !== undefined ? { lastname: m.lastname } : {}),
    ...(m.email !== undefined ? { email: m.email } : {}),
    groups: [...m.groups],
  };
}

const differs = (want: string | undefined, have: string | undefined): boolean =>
  want !== undefined && want.trim() !== (have ?? "").trim();

export function mappingStep(
  ctx: PlanContext,
  input: {
    d: DesiredUser;
    m: Mapping | undefined;
    auth: string | FromStep;
    groups: string[];
    /** Object keys besides the mapping (the IdP user whose authenticationId is used). */
    touches: string[];
    dependsOn: string[];
  },
): CreateMappingStep | UpdateMappingStep | undefined {
  const { d, m, auth, groups } = input;
  // Built only for a step that is made: most users of a large org are in sync.
  const dependsOn = (): string[] => [...input.dependsOn, ...groupDependencies(ctx, groups)];
  const touches = (): string[] => [mappingKey(d.id), ...input.touches];
  if (m === undefined) {
    const after = profileMapping(ctx, {
      id: d.id,
      authenticationId: auth,
      groups,
      ...(d.firstname !== undefined ? { firstname: d.firstname.trim() } : {}),
      ...(d.lastname !== undefined ? { lastname: d.lastname.trim() } : {}),
      email: d.email.trim(),
    });
    const reason = `user '${d.id}' is not mapped to the organization`;
    return {
      ...base({ kind: "createMapping", target: d.id, reason, touches: touches(), dependsOn: dependsOn() }),
      after,
    };
  }
  const diff = diffMapping(ctx, { d, m, auth, groups });
  if (diff === undefined) return undefined;
  const { changes, changed } = diff;
  return {
    ...base({
      kind: "updateMapping",
      target: d.id,
      reason: `${changes.join(", ")} ${changes.length > 1 ? "differ" : "differs"}`,
      touches: touches(),
      dependsOn: dependsOn(),
    }),
    before: cleanMapping(m),
    after: profileMapping(ctx, { ...copyMapping(cleanMapping(m)), ...changed }),
  };
}

/**
 * What an existing mapping lacks to match the row: the changed fields and their names, or
 * `undefined` when nothing differs (decided without allocating: most mappings are in sync).
 */
export function diffMapping(
  ctx: PlanContext,
  input: { d: DesiredUser; m: Mapping; auth: string | FromStep; groups: string[] },
): { changes: string[]; changed: Partial<PlannedMapping> } | undefined {
  const { d, m, auth, groups } = input;
  const v1 = ctx.profile === "v1";
  const authDiffers = typeof auth === "object" || auth !== m.authenticationId;
  const groupsDiffer = !sameList(groups, m.groups);
  const firstnameDiffers = v1 && d.firstname !== undefined && differs(d.firstname, m.firstname);
  const lastnameDiffers = v1 && d.lastname !== undefined && differs(d.lastname, m.lastname);
  // Case-sensitive on purpose: the attribute is shown as stored, so a case fix is a change.
  const emailDiffers = v1 && differs(d.email, m.email);
  if (!authDiffers && !groupsDiffer && !firstnameDiffers && !lastnameDiffers && !emailDiffers)
    return undefined;
  const changes: string[] = [];
  const changed: Partial<PlannedMapping> = {};
  if (authDiffers) {
    changed.authenticationId = auth;
    changes.push("authenticationId");
  }
  if (groupsDiffer) {
    changed.groups = groups;
    changes.push("groups");
  }
  if (firstnameDiffers) {
    changed.firstname = d.firstname!.trim();
    changes.push("firstname");
  }
  if (lastnameDiffers) {
    changed.lastname = d.lastname!.trim();
    changes.push("lastname");
  }
  if (emailDiffers) {
    changed.email = d.email.trim();
    changes.push("email");
  }
  return { changes, changed };
}
