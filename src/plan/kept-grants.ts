/** Grants incremental mode keeps (docs/permissions.md): each one a notice, counted as `Kept by mode`. */
import type { Assignee, WorkspaceGrant } from "../permissions.js";
import type { PlanContext } from "./context.js";
import { permissionKey } from "./fingerprint.js";
import { notice } from "./steps.js";

/**
 * Incremental mode leaves a grant on a workspace the holder no longer lists: said as a notice
 * (counted as `Kept by mode`), since a plan that only keeps it would otherwise read as "no changes".
 */
export function keptByMode(ctx: PlanContext, a: Assignee, workspace: string, grant: WorkspaceGrant): void {
  const own = grant.permissions.join(", ");
  const below =
    grant.hierarchy.length > 0
      ? `${own ? " and " : ""}${grant.hierarchy.join(", ")} on the workspaces below`
      : "";
  notice(ctx, {
    kind: "keptByMode",
    target: permissionKey(workspace, a),
    message: `keeps ${own}${below}: the desired state does not list ${workspace}, and the mode is incremental (mode full would revoke them)`,
  });
}
