/**
 * Deleting users: rows marked `state: absent`, managed mappings missing from the file (`full`
 * mode), and unlinked credentials (`unlinkedCredentials: delete`). Also lists what is left alone
 * (unmanaged, unlinked) so nothing is silently dropped.
 */
import type { DesiredUser, Identity } from "../desired/types.js";
import type { IdpUser, Mapping } from "../service/types.js";
import { isListed, linkedIdp, lower, otherHolders, rowMapping, type PlanContext } from "./context.js";
import { idpIsMapped, linkedIdpAt } from "./auth-links.js";
import { cleanMapping } from "./mapping-step.js";
import { graceSince } from "./grace.js";
import { leaverAccess, type LeaverAccess } from "./access/leaver-access.js";
import { planAccessRevoke, revokeWords, signsInElsewhere } from "./revoke-access.js";
import { base, cleanIdpUser, commitUser, credentialsTarget, idpKey, mappingKey, notice } from "./steps.js";
import type { Step } from "./types.js";

/** Credentials may go with a user only when no other mapping uses them and no present row wants the email. */
function deletableCredentials(ctx: PlanContext, idp: IdpUser, mappingId: string | undefined): boolean {
  if (otherHolders(ctx.idx, idp.authenticationId, mappingId).length > 0) return false;
  return ctx.idx.desiredByEmail.get(lower(idp.email))?.state !== "present";
}

interface DeleteInput {
  mapping?: Mapping | undefined;
  credentials?: IdpUser | undefined;
  /** The login the mapping points at, deleted or not (a kept one still signs the person in). */
  linked?: IdpUser | undefined;
  /** The row's identity, for a row marked absent. */
  identity?: Identity | undefined;
  names: Array<string | undefined>;
  inScope: boolean;
  reason: string;
  /** Missing from the source (full mode): waits for `policy.revokeAfter`, when set. */
  graced?: boolean;
}

function deleteUser(ctx: PlanContext, input: DeleteInput): void {
  const { mapping, credentials } = input;
  const target = mapping ? mappingKey(mapping.id) : credentials ? idpKey(credentials.email) : undefined;
  if (target === undefined) return;
  const deletesMapping = mapping !== undefined && ctx.policy.deletions === "remove";
  const access = deletesMapping ? undefined : accessToRevoke(ctx, input);
  if (!credentials && !deletesMapping && !access) return;
  if (ctx.policy.deletions === "none") {
    if (input.inScope && !ctx.safety.isProtected(input.names))
      notice(ctx, {
        kind: "kept",
        target,
        message: `${input.reason}; kept because policy.deletions is none`,
      });
    return;
  }
  const reason = reasonAfterGrace(ctx, input, target);
  if (reason === undefined) return;
  // A protected or out-of-scope person whose login would go gets one notice, from commitUser.
  const refused = !!credentials && (ctx.safety.isProtected(input.names) || !input.inScope);
  if (access && mapping && !refused) {
    const { names, inScope, linked } = input;
    const elsewhere = !credentials && signsInElsewhere(ctx, { mapping, linked, identity: input.identity });
    const words = revokeWords({
      linked: credentials ? undefined : linked,
      loginDeleted: !!credentials,
      elsewhere,
    });
    planAccessRevoke(ctx, { mapping, access, names, inScope, reason: `${words}; ${reason}` });
    if (!credentials) return;
  }
  const steps: Step[] = [];
  const credStep = credentials ? deleteCredentialsStep(credentials, mapping, reason) : undefined;
  if (credStep) steps.push(credStep);
  if (mapping && deletesMapping) {
    steps.push({
      ...base({
        kind: "deleteMapping",
        target: mapping.id,
        reason,
        touches: [mappingKey(mapping.id)],
        dependsOn: credStep ? [credStep.id] : [],
      }),
      before: cleanMapping(mapping),
    });
  }
  commitUser(ctx, {
    target,
    names: input.names,
    inScope: input.inScope,
    steps,
    deletes: { user: target, stepIds: steps.map((s) => s.id) },
  });
}

/** The deletion's reason, with since when a leaver is missing; undefined while `policy.revokeAfter` lasts. */
function reasonAfterGrace(
  ctx: PlanContext,
  input: { names: Array<string | undefined>; inScope: boolean; reason: string; graced?: boolean },
  target: string,
): string | undefined {
  if (!input.graced || !ctx.grace || !input.inScope || ctx.safety.isProtected(input.names))
    return input.reason;
  const since = graceSince(ctx.grace, target);
  if (since === undefined) return undefined;
  return `${input.reason} since ${since}; policy.revokeAfter ${ctx.policy.revokeAfter?.text} has passed`;
}

/**
 * `deletions: revoke`: what a leaver with a mapping still holds (access/leaver-access.ts), taken
 * away whether or not a built-in login goes too; undefined when they hold nothing any more.
 */
function accessToRevoke(ctx: PlanContext, o: { mapping?: Mapping | undefined }): LeaverAccess | undefined {
  if (ctx.policy.deletions !== "revoke" || o.mapping === undefined) return undefined;
  return leaverAccess(ctx, o.mapping);
}

function deleteCredentialsStep(credentials: IdpUser, mapping: Mapping | undefined, reason: string): Step {
  const t = credentialsTarget(credentials.email);
  return {
    ...base({
      kind: "deleteCredentials",
      target: t,
      reason,
      // The mapping whose state allowed the deletion too: applying a saved plan after it
      // changed (moved out of scope, renamed, protected) must not revoke the login.
      touches: mapping ? [idpKey(t), mappingKey(mapping.id)] : [idpKey(t)],
    }),
    before: cleanIdpUser(credentials),
  };
}

export function planAbsentUser(ctx: PlanContext, d: DesiredUser): void {
  const m = rowMapping(ctx, d.id);
  const linked = linkedIdp(ctx.idx, m);
  let credentials = linked ?? (d.identity === "builtin" ? ctx.idx.idpByEmail.get(lower(d.email)) : undefined);
  if (credentials && !deletableCredentials(ctx, credentials, m?.id)) {
    const message = `${d.source.file}:${d.source.line}: credentials of ${lower(credentials.email)} are used by another user; not deleted`;
    notice(ctx, { kind: "conflict", target: idpKey(credentials.email), message });
    ctx.conflicts++;
    credentials = undefined;
  }
  deleteUser(ctx, {
    mapping: m,
    credentials,
    linked,
    identity: d.identity,
    names: [d.id, d.email, m?.email, linked?.email, credentials?.email],
    inScope:
      ctx.safety.desiredInScope(d, m?.groups ?? []) &&
      (m === undefined || ctx.safety.mappingInScope(m, linked)),
    reason: `marked absent at ${d.source.file}:${d.source.line}`,
  });
}

/**
 * Every actual mapping and IdP user the file does not name: unmanaged and unlinked notices,
 * deletions in `full` mode. Returns the number of managed users (the base of a percentage
 * `maxDeletes`), counted in the same pass to stay linear.
 */
export function planUnlisted(ctx: PlanContext): number {
  const { idx, safety, policy } = ctx;
  const full = policy.mode === "full";
  let managed = 0;
  const { mappings, idpUsers } = ctx.actual;
  for (let i = 0; i < mappings.length; i++) {
    const m = mappings[i]!;
    const linked = linkedIdpAt(idx.auth, i);
    if (!safety.mappingInScope(m, linked)) {
      if (!isListed(idx, i, m.id))
        notice(ctx, {
          kind: "unmanaged",
          target: mappingKey(m.id),
          message: "outside policy.scope; left alone",
        });
      continue;
    }
    // The linked email is nearly always the mapping's own: test it only when it differs.
    const linkedEmail = linked?.email === m.email ? undefined : linked?.email;
    if (!safety.protectedName(m.id) && !safety.protectedName(m.email) && !safety.protectedName(linkedEmail))
      managed++;
    if (!isListed(idx, i, m.id)) planUnlistedMapping(ctx, m, linked);
  }
  const deleteUnlinked = full && policy.unlinkedCredentials === "delete" && policy.deletions !== "none";
  for (let i = 0; i < idpUsers.length; i++) {
    const u = idpUsers[i]!;
    // Rows for built-in users handle their own credentials; an external row of the same email does not.
    if (idpIsMapped(idx.auth, i) || idx.desiredByEmail.get(lower(u.email))?.identity === "builtin") continue;
    const inScope = safety.idpInScope(u);
    if (deleteUnlinked && inScope) {
      if (!safety.isProtected([u.email])) managed++;
      deleteUser(ctx, {
        credentials: u,
        names: [u.email],
        inScope,
        reason: "credentials no mapping of this organization uses",
        graced: true,
      });
      continue;
    }
    const why = inScope
      ? "no mapping of this organization uses these credentials; left alone"
      : "outside policy.scope; left alone";
    notice(ctx, { kind: "unlinked", target: idpKey(u.email), message: why });
  }
  return managed;
}

/**
 * A managed mapping the file does not name: deleted in `full` mode (once missing for
 * `policy.revokeAfter`, when set); in incremental mode counted when only the mode keeps it.
 */
function planUnlistedMapping(ctx: PlanContext, m: Mapping, linked: IdpUser | undefined): void {
  const names = [m.id, m.email, linked?.email];
  if (ctx.policy.mode !== "full") {
    if (wouldDelete(ctx, m, linked, names)) ctx.keptByMode++;
    return;
  }
  const credentials = linked && deletableCredentials(ctx, linked, m.id) ? linked : undefined;
  deleteUser(ctx, {
    mapping: m,
    credentials,
    linked,
    names,
    inScope: true,
    reason: "not in the desired state (mode full)",
    graced: true,
  });
}

/** A managed mapping the file does not name that `full` mode would revoke or remove (incremental keeps it). */
function wouldDelete(
  ctx: PlanContext,
  m: Mapping,
  linked: IdpUser | undefined,
  names: Array<string | undefined>,
): boolean {
  const { deletions } = ctx.policy;
  if (deletions === "none") return false;
  if (
    deletions === "revoke" &&
    !(linked && deletableCredentials(ctx, linked, m.id)) &&
    accessToRevoke(ctx, { mapping: m }) === undefined
  )
    return false;
  return !ctx.safety.isProtected(names);
}
