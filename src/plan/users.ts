/**
 * Users listed as present in the desired state: credentials (built-in identity only) and the
 * mapping, matched by lower-cased email and by id.
 */
import type { DesiredUser } from "../desired/types.js";
import type { IdpUser, Mapping } from "../service/types.js";
import { linkedIdp, lower, otherHolders, rowMapping, type PlanContext } from "./context.js";
import { diffMapping, mappingStep, targetGroups } from "./mapping-step.js";
import {
  base,
  cleanIdpUser,
  commitUser,
  credentialsTarget,
  idpKey,
  mappingKey,
  notice,
  stepId,
} from "./steps.js";
import type { FromStep, Step } from "./types.js";
import { heldAsEmailChange } from "./email-change.js";

const where = (d: DesiredUser): string => `${d.source.file}:${d.source.line}`;

/**
 * The display name of new credentials: given, else "firstname lastname", else the name the
 * user record (mapping) keeps (a revoked person re-added keeps their name), else the email's
 * local part.
 */
export function defaultDisplayName(d: DesiredUser, m?: Mapping): string {
  const given = d.displayName?.trim();
  if (given) return given;
  const full = [d.firstname?.trim(), d.lastname?.trim()].filter((s) => s).join(" ");
  if (full) return full;
  const kept = [m?.firstname?.trim(), m?.lastname?.trim()].filter((s) => s).join(" ");
  if (kept) return kept;
  const email = d.email.trim();
  const at = email.indexOf("@");
  return at > 0 ? email.slice(0, at) : email;
}

export function planPresentUser(ctx: PlanContext, d: DesiredUser): void {
  if (d.identity === "external") planExternalUser(ctx, d);
  else planBuiltinUser(ctx, d);
}

function planExternalUser(ctx: PlanContext, d: DesiredUser): void {
  const m = rowMapping(ctx, d.id);
  const auth = d.authenticationId?.trim();
  if (!auth) {
    notice(ctx, {
      kind: "refused",
      target: mappingKey(d.id),
      message: `${where(d)}: external user without authenticationId`,
    });
    return;
  }
  const holders = otherHolders(ctx.idx, auth, d.id);
  if (holders.length > 0) {
    const message = `${where(d)}: authenticationId of user '${d.id}' is already used by mapping(s) ${holders.join(", ")}; not mapped`;
    notice(ctx, { kind: "conflict", target: mappingKey(d.id), message });
    ctx.conflicts++;
    return;
  }
  const linked = linkedIdp(ctx.idx, m);
  const groups = targetGroups(ctx, d, m);
  const step = mappingStep(ctx, { d, m, auth, groups, touches: [], dependsOn: [] });
  commitUser(ctx, {
    target: mappingKey(d.id),
    names: [d.id, d.email, m?.email, linked?.email],
    inScope:
      ctx.safety.desiredInScope(d, groups) && (m === undefined || ctx.safety.mappingInScope(m, linked)),
    steps: step ? [step] : [],
  });
}

function planBuiltinUser(ctx: PlanContext, d: DesiredUser): void {
  const { idx } = ctx;
  const email = lower(d.email);
  const m = rowMapping(ctx, d.id);
  const idp = idx.idpByEmail.get(email);
  // The usual case, decided without more look-ups: the row's mapping points at the credentials
  // of the row's email, and no other mapping points at them.
  const linkedToIdp = idp !== undefined && m !== undefined && m.authenticationId === idp.authenticationId;
  const linked = linkedToIdp && idx.idpAuthUnique ? idp : linkedIdp(idx, m);
  if (idp && !(linkedToIdp && idx.sharedAuth.size === 0)) {
    const holders = otherHolders(idx, idp.authenticationId, d.id);
    if (holders.length > 0) {
      const message = `${where(d)}: credentials of ${email} are already mapped to ${holders.join(", ")}; user '${d.id}' not planned`;
      notice(ctx, { kind: "conflict", target: idpKey(email), message });
      ctx.conflicts++;
      return;
    }
  }
  if (inSync(ctx, d, idp, m, linked)) return;
  // A new person with the name of a login the file dropped: likely one person, new e-mail.
  if (idp === undefined && m === undefined && heldAsEmailChange(ctx, d)) return;
  const { steps, auth, dependsOn: credentialDeps, touches } = credentialsSteps(ctx, { d, email, idp, m });
  const groups = targetGroups(ctx, d, m);
  const mapStep = mappingStep(ctx, { d, m, auth, groups, touches, dependsOn: credentialDeps });
  if (mapStep) steps.push(mapStep);
  const emailChange = mapStep !== undefined && linked !== undefined && lower(linked.email) !== email;
  const cleanup =
    mapStep && linked
      ? oldCredentialsCleanup(ctx, { email, linked, after: mapStep.id, mappingId: d.id })
      : undefined;
  if (cleanup) steps.push(cleanup);
  // Most users of a large organization are in sync: skip building what commitUser would ignore.
  if (steps.length === 0) return;
  commitUser(ctx, {
    target: mappingKey(d.id),
    names: [d.id, d.email, m?.email, linked?.email],
    inScope:
      ctx.safety.desiredInScope(d, groups) && (m === undefined || ctx.safety.mappingInScope(m, linked)),
    steps,
    // An email change takes the login away from the old email: it counts against maxDeletes,
    // and when held back, the whole change is (new credentials, re-pointed mapping, old ones
    // deleted). A file with every email wrong (a bad export, the wrong domain) must not move
    // everyone's login to addresses nobody reads.
    ...(emailChange ? { deletes: { user: idpKey(linked.email), stepIds: steps.map((s) => s.id) } } : {}),
  });
}

interface CredentialsPlan {
  steps: Step[];
  /** What the mapping points at: the existing credentials, or the step that creates them. */
  auth: string | FromStep;
  /** The create step the mapping waits for, if any. */
  dependsOn: string[];
  /** The credentials the mapping step relies on, when they exist already. */
  touches: string[];
}

/** A built-in user's credentials: created when missing, their display name updated when it differs. */
function credentialsSteps(
  ctx: PlanContext,
  input: { d: DesiredUser; email: string; idp: IdpUser | undefined; m: Mapping | undefined },
): CredentialsPlan {
  const { d, email, idp, m } = input;
  const target = credentialsTarget(email);
  if (idp === undefined) {
    const password =
      ctx.policy.passwords === "column" && d.password === undefined ? "none" : ctx.policy.passwords;
    const create: Step = {
      ...base({
        kind: "createCredentials",
        target,
        reason: `no credentials for ${email}`,
        touches: [idpKey(email)],
      }),
      after: { email: d.email.trim(), displayName: defaultDisplayName(d, m), password },
    };
    const fromStep = stepId("createCredentials", target);
    return { steps: [create], auth: { fromStep }, dependsOn: [fromStep], touches: [] };
  }
  const steps: Step[] = [];
  const want = d.displayName?.trim();
  if (want !== undefined && want !== idp.displayName.trim()) {
    steps.push({
      ...base({
        kind: "updateCredentials",
        target,
        reason: "display name differs",
        touches: [idpKey(email)],
      }),
      before: { email: idp.email, displayName: idp.displayName },
      after: { email: idp.email, displayName: want },
    });
  }
  return { steps, auth: idp.authenticationId, dependsOn: [], touches: [idpKey(email)] };
}

/**
 * The row needs no step at all: credentials and mapping exist, the mapping points at the
 * credentials of the row's email, and nothing differs. Most users of a large organization are
 * in this state, so it is decided before anything is allocated for the full path (which would
 * come to the same answer).
 */
function inSync(
  ctx: PlanContext,
  d: DesiredUser,
  idp: IdpUser | undefined,
  m: Mapping | undefined,
  linked: IdpUser | undefined,
): boolean {
  if (idp === undefined || m === undefined || linked !== idp) return false;
  const want = d.displayName?.trim();
  if (want !== undefined && want !== idp.displayName.trim()) return false;
  const groups = targetGroups(ctx, d, m);
  return diffMapping(ctx, { d, m, auth: idp.authenticationId, groups }) === undefined;
}

/**
 * Email change of a known id: once the mapping points at the new credentials, the old ones
 * are deleted, unless
 * `deletions: none`, another mapping uses them, or another row of the file wants that email.
 */
function oldCredentialsCleanup(
  ctx: PlanContext,
  input: { email: string; linked: IdpUser; after: string; mappingId: string },
): Step | undefined {
  const oldEmail = lower(input.linked.email);
  if (oldEmail === input.email || ctx.policy.deletions === "none") return undefined;
  if (ctx.idx.desiredByEmail.has(oldEmail)) return undefined;
  if (otherHolders(ctx.idx, input.linked.authenticationId, input.mappingId).length > 0) return undefined;
  const target = credentialsTarget(oldEmail);
  return {
    ...base({
      kind: "deleteCredentials",
      target,
      reason: `email of user '${input.mappingId}' changed to ${input.email}`,
      touches: [idpKey(oldEmail), mappingKey(input.mappingId)],
      dependsOn: [input.after],
    }),
    before: cleanIdpUser(input.linked),
  };
}
