/**
 * Carries out one plan step through the client, with the recovery rules of DESIGN section 6:
 * a create that meets "exists" reads the object back and succeeds when it matches; a delete that
 * meets 404 is done; an update that meets 404 fails (the object disappeared since the plan).
 * Bulk membership steps have rules of their own (run-members.ts).
 */
import { HttpError } from "../errors.js";
import type { CallOptions, Mapping, ServiceClient, UserGroup } from "../service/types.js";
import type { PlannedMapping, Step } from "../plan/types.js";
import type { StepOutcome } from "./types.js";
import { runMembersStep, type MembersContext } from "./run-members.js";
import { StepFailure } from "./step-failure.js";
import { runOrganizationPermissions, runWorkspacePermissions } from "./run-permissions.js";
import { runDataFilterStep } from "./run-filters.js";
import type { PasswordProvider } from "./types.js";

export interface StepContext extends MembersContext {
  client: ServiceClient;
  passwords: PasswordProvider;
  /** authenticationIds returned by createCredentials steps, by step id. */
  authIds: ReadonlyMap<string, string>;
  callOptions: CallOptions;
}

export interface StepSuccess {
  recovered?: NonNullable<StepOutcome["recovered"]>;
  /** For createCredentials: the IdP's authenticationId, for the mapping steps that depend on it. */
  authenticationId?: string;
}

export { StepFailure };

/**
 * The authenticationId a mapping will point at. An empty one (the service answered none, even
 * when read back) would give a mapping no login can ever match: the step fails instead, and
 * the mapping that waits for it is skipped.
 */
function authIdOf(email: string, authenticationId: string): string {
  if (authenticationId !== "") return authenticationId;
  throw new StepFailure({
    message: `IdP user ${email} exists, but the service gave no authenticationId for it (not in the answer, not when read back); its mapping was not created. Check the service's identity provider, then run again`,
  });
}

export async function runStep(step: Step, ctx: StepContext): Promise<StepSuccess> {
  const { client, callOptions: opts } = ctx;
  switch (step.kind) {
    case "createGroup":
      return createGroup(step, ctx);
    case "updateGroup":
      await whenPresent(step.target, "group", () => client.updateGroup(step.after, opts));
      return {};
    case "deleteGroup":
      return deleted(await client.deleteGroup(step.target, opts));
    case "createCredentials":
      return createCredentials(step, ctx);
    case "updateCredentials":
      await whenPresent(step.target, "IdP user", () => client.updateIdpUser(step.after, opts));
      return {};
    case "deleteCredentials":
      // The email as the IdP stores it (the step id lower-cases it): the service may match paths
      // case-sensitively, and a 404 here would be read as "already gone".
      return deleted(await client.deleteIdpUser(step.before.email, opts));
    case "createMapping":
      return createMapping(step, ctx);
    case "updateMapping": {
      const mapping = resolveMapping(step.after, ctx.authIds, step.id);
      await whenPresent(step.target, "mapping", () => client.updateMapping(mapping, opts));
      return {};
    }
    case "deleteMapping":
      return deleted(await client.deleteMapping(step.target, opts));
    case "addMembers":
    case "removeMembers":
      return runMembersStep(step, ctx);
    case "grantWorkspacePermissions":
    case "revokeWorkspacePermissions": {
      let done: StepSuccess = {};
      await whenPresent(
        step.target,
        "workspace",
        async () => (done = await runWorkspacePermissions(step, ctx)),
      );
      return done;
    }
    case "grantOrganizationPermissions":
    case "revokeOrganizationPermissions":
      return runOrganizationPermissions(step, ctx);
    case "createDataFilter":
    case "updateDataFilter":
    case "deleteDataFilter":
      return runDataFilterStep(step, ctx);
    case "deleteApiToken":
      return deleted(await deleteApiToken(client, step, opts));
  }
}

/** A leaver's token (profile v1): one already gone (404) is what the step wanted. */
function deleteApiToken(
  client: StepContext["client"],
  step: StepOf<"deleteApiToken">,
  opts: StepContext["callOptions"],
): Promise<"deleted" | "notFound"> {
  if (client.apiTokens === undefined)
    throw new StepFailure({
      message: `this service has no API tokens to delete (profile ${client.profile})`,
    });
  return client.apiTokens.delete(step.userId, step.tokenId, opts);
}

type StepOf<K extends Step["kind"]> = Extract<Step, { kind: K }>;

/** A create that meets "exists" reads the group back and brings it in line. */
async function createGroup(step: StepOf<"createGroup">, ctx: StepContext): Promise<StepSuccess> {
  const { client, callOptions: opts } = ctx;
  const res = await client.createGroup(step.after, opts);
  if (res.status === "created") return {};
  const found = await client.getGroup(step.after.id);
  if (!found)
    throw new StepFailure({
      message: `group ${step.target} answered "exists" but cannot be read back; re-run plan`,
    });
  if (!sameGroup(found, step.after)) await client.updateGroup(step.after, opts);
  return { recovered: "exists" };
}

/**
 * The IdP user, with its initial password; "exists" succeeds only when the display name matches,
 * and then the password just written is set on the login (a create of a crashed run that landed
 * late): the newest line of the credentials file stays the password the service has.
 */
async function createCredentials(step: StepOf<"createCredentials">, ctx: StepContext): Promise<StepSuccess> {
  const { client, callOptions: opts } = ctx;
  const { email, displayName } = step.after;
  const password = step.after.password === "none" ? undefined : await passwordFor(ctx.passwords, email);
  const res = await client.createIdpUser(
    password === undefined ? { email, displayName } : { email, displayName, password },
    opts,
  );
  if (res.status === "created") return { authenticationId: authIdOf(email, res.value.authenticationId) };
  const found = await client.getIdpUser(email);
  if (!found)
    throw new StepFailure({
      message: `IdP user ${email} answered "exists" but cannot be read back; re-run plan`,
    });
  if (found.displayName !== displayName) {
    throw new StepFailure({
      message: `conflict: IdP user ${email} already exists with display name "${found.displayName}", not "${displayName}"; re-run plan to update it`,
    });
  }
  if (password !== undefined && step.after.password === "generate")
    await client.updateIdpUser({ email: found.email, displayName: found.displayName, password }, opts);
  return { recovered: "exists", authenticationId: authIdOf(email, found.authenticationId) };
}

/** A mapping that meets "exists" succeeds when it points at the same login, and is updated to match. */
async function createMapping(step: StepOf<"createMapping">, ctx: StepContext): Promise<StepSuccess> {
  const { client, callOptions: opts } = ctx;
  const mapping = resolveMapping(step.after, ctx.authIds, step.id);
  const res = await client.createMapping(mapping, opts);
  if (res.status === "created") return {};
  const found = await client.getMapping(mapping.id);
  if (!found)
    throw new StepFailure({
      message: `mapping ${mapping.id} answered "exists" but cannot be read back; re-run plan`,
    });
  if ((found.authenticationId ?? "") !== (mapping.authenticationId ?? "")) {
    throw new StepFailure({
      message:
        `conflict: mapping ${mapping.id} already exists with authenticationId ${found.authenticationId ?? "(none)"}, ` +
        `not ${mapping.authenticationId ?? "(none)"}; re-run plan to update it or fix the desired state`,
    });
  }
  if (!sameMapping(found, mapping)) await client.updateMapping(mapping, opts);
  return { recovered: "exists" };
}

/** A password that cannot be made durable must not be sent; and the next create would fail alike. */
async function passwordFor(passwords: PasswordProvider, email: string): Promise<string | undefined> {
  try {
    return await passwords.passwordFor(email);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new StepFailure({
      message: `the initial password for ${email} could not be stored (${why}); nothing was sent for this user`,
      fatal: true,
    });
  }
}

function deleted(res: "deleted" | "notFound"): StepSuccess {
  return res === "notFound" ? { recovered: "notFound" } : {};
}

/** An update that meets 404 fails clearly: the plan was made against an object that is gone. */
async function whenPresent(target: string, what: string, update: () => Promise<unknown>): Promise<void> {
  try {
    await update();
  } catch (err) {
    if (err instanceof HttpError && err.status === 404) {
      throw new StepFailure({
        message: `${what} ${target} disappeared since the plan was made (${err.method} ${err.path} answered 404); re-run plan`,
        status: 404,
        traceId: err.traceId,
      });
    }
    throw err;
  }
}

/** Replaces `{ fromStep }` with the authenticationId the credentials create returned. */
export function resolveMapping(
  after: PlannedMapping,
  authIds: ReadonlyMap<string, string>,
  stepId: string,
): Mapping {
  const ref = after.authenticationId;
  if (ref === undefined || typeof ref === "string") return after as Mapping;
  const authenticationId = authIds.get(ref.fromStep);
  if (authenticationId === undefined) {
    throw new StepFailure({
      message: `step ${stepId} needs the authenticationId of step ${ref.fromStep}, which produced none`,
    });
  }
  return { ...after, authenticationId };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  const x = [...a].sort();
  const y = [...b].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

function sameGroup(found: UserGroup, wanted: UserGroup): boolean {
  return (found.name ?? "") === (wanted.name ?? "") && sameList(found.parents, wanted.parents);
}

/** Only the fields the wanted mapping sets are compared: the profile may not know the others. */
function sameMapping(found: Mapping, wanted: Mapping): boolean {
  if (!sameList(found.groups, wanted.groups)) return false;
  for (const field of ["firstname", "lastname", "email"] as const) {
    if (wanted[field] !== undefined && found[field] !== wanted[field]) return false;
  }
  return true;
}
