import type { ActualState } from "../service/index.js";

/** The fields of the "listed" log line: what was listed, how many, and how long it took. */
export function listingCounts(
  actual: ActualState,
  profile: string,
  durationMs: number,
): Record<string, unknown> {
  const p = actual.permissions;
  return {
    idpUsers: actual.idpUsers.length,
    mappings: actual.mappings.length,
    groups: actual.groups.length,
    // Workspaces, grants read, and how (one layout per workspace, or per assignee).
    ...(p
      ? {
          workspaces: p.workspaces.length,
          grants: p.assignments.length,
          ...(p.via !== undefined ? { permissionsListed: p.via } : {}),
        }
      : {}),
    profile,
    durationMs,
  };
}
