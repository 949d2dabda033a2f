/**
 * Organization MANAGE as a reviewer reads it (docs/audits.md "Organization MANAGE"): it reaches
 * every workspace with every workspace permission (access-rules R9), so its holder gets a row on
 * each workspace, with an `organization` reason naming who holds it (their own grant or a group),
 * and the filters that name them there (R14: filters bind administrators too). A workspace they
 * also reach through a grant keeps that row and gains the organization reason.
 */
import { WORKSPACE_PERMISSIONS, compareIds as cmp, permissionSet } from "../permissions.js";
import type { AccessReason } from "../plan/access/reach-types.js";
import type { AccessModel } from "../plan/access/effective-access.js";
import type { EffectiveFilter } from "../plan/access/reach-types.js";

/** What of the person context (people.ts PersonContext) the organization's reach reads. */
interface ReachContext {
  model: AccessModel;
  names: ReadonlyMap<string, string | undefined>;
  workspaceIds: readonly string[];
  organizationReasons(holders: readonly OrganizationReason[]): AccessReason[];
  flagFilters(list: EffectiveFilter[]): EffectiveFilter[];
}
import type { OrganizationReason, WorkspaceAccess } from "./types.js";

const EVERY = permissionSet(WORKSPACE_PERMISSIONS);

export function withOrganizationReach(
  ctx: ReachContext,
  o: {
    userId: string;
    groups: readonly string[];
    orgReasons: readonly OrganizationReason[];
    access: WorkspaceAccess[];
  },
): WorkspaceAccess[] {
  const holders = o.orgReasons.filter((r) => r.permissions.includes("MANAGE"));
  if (holders.length === 0) return o.access;
  const reasons: AccessReason[] = ctx.organizationReasons(holders);
  const byWs = new Map(o.access.map((a) => [a.workspace, a] as const));
  const out: WorkspaceAccess[] = [];
  for (const ws of ctx.workspaceIds) {
    const had = byWs.get(ws);
    if (had) {
      out.push({
        ...had,
        permissions: EVERY,
        reaches: true,
        manage: true,
        reasons: [...had.reasons, ...reasons],
      });
      continue;
    }
    const { filters, filtered } = ctx.model.filtersAt(o.userId, o.groups, ws);
    const name = ctx.names.get(ws);
    out.push({
      workspace: ws,
      ...(name !== undefined ? { workspaceName: name } : {}),
      permissions: EVERY,
      granted: [],
      reaches: true,
      viaOrganization: true,
      manage: true,
      reasons,
      filters: ctx.flagFilters(filters),
      unfiltered: filters.length === 0 && filtered,
    });
  }
  return out.sort((a, b) => cmp(a.workspace, b.workspace));
}

/** The `organization` reasons of these organization MANAGE holders, once per distinct list. */
export function organizationReasonsOf(holders: readonly OrganizationReason[]): AccessReason[] {
  return holders.map((r) => ({
    kind: "organization",
    holder: r.holder,
    groupChain: r.groupChain,
    grantedOn: "organization",
    workspaceChain: [],
    permissions: EVERY,
    ...(r.managed !== undefined ? { managed: r.managed } : {}),
    text: `organization MANAGE (${r.kind === "direct" ? "direct grant" : r.text}): every workspace`,
  }));
}

/** `{ key: value }`, or nothing when the value is undefined. */
export const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
