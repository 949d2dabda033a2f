/**
 * Carrying out permission steps. Each is one managePermissions that sets, for every assignee it
 * lists, exactly the grant the step wants (so sending it again is harmless, and the transport
 * retries it like a PUT). When its outcome stays unknown (no answer, or a 5xx after the
 * retries), the grants are read back: when every listed assignee already holds what the step
 * wanted, it landed and the step succeeds (`recovered: "readBack"`); otherwise it fails as it did.
 * (A workspace that is gone answers 404: run-step.ts says so.)
 */
import { HttpError, NetworkError } from "../errors.js";
import { assigneeKey, sameGrant, sameSet } from "../permissions.js";
import type { OrganizationPermissionsStep, WorkspacePermissionsStep } from "../plan/types.js";
import type { CallOptions, ServiceClient } from "../service/types.js";

interface Context {
  client: ServiceClient;
  callOptions: CallOptions;
}
type Success = { recovered?: "readBack" };

/** An error after which the write may or may not have landed. */
const unknownOutcome = (err: unknown): boolean =>
  err instanceof NetworkError || (err instanceof HttpError && err.status >= 500);

export async function runWorkspacePermissions(
  step: WorkspacePermissionsStep,
  ctx: Context,
): Promise<Success> {
  const api = ctx.client.permissions;
  const grants = step.changes.map((c) => ({ assignee: c.assignee, ...c.after }));
  try {
    await api.manageWorkspacePermissions(step.target, grants, ctx.callOptions);
    return {};
  } catch (err) {
    if (!unknownOutcome(err)) throw err;
    const now = new Map(
      (await api.getWorkspacePermissions(step.target)).map((a) => [assigneeKey(a.assignee), a]),
    );
    const landed = step.changes.every((c) =>
      sameGrant(now.get(assigneeKey(c.assignee)) ?? { permissions: [], hierarchy: [] }, c.after),
    );
    if (landed) return { recovered: "readBack" };
    throw err;
  }
}

export async function runOrganizationPermissions(
  step: OrganizationPermissionsStep,
  ctx: Context,
): Promise<Success> {
  const api = ctx.client.permissions;
  const grants = step.changes.map((c) => ({ assignee: c.assignee, permissions: c.after }));
  try {
    await api.manageOrganizationPermissions(grants, ctx.callOptions);
    return {};
  } catch (err) {
    if (!unknownOutcome(err)) throw err;
    const now = new Map(
      (await api.getOrganizationPermissions()).map((o) => [assigneeKey(o.assignee), o.permissions]),
    );
    const landed = step.changes.every((c) => sameSet(now.get(assigneeKey(c.assignee)) ?? [], c.after));
    if (landed) return { recovered: "readBack" };
    throw err;
  }
}
