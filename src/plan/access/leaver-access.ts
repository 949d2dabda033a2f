/**
 * What a leaver still holds that usersync manages (docs/configuration.md, "What `revoke` does"):
 * the groups usersync manages membership of, direct grants on the workspaces (and organization
 * permissions) this run manages, the data filters usersync made for them, and their own API
 * tokens (listed for leavers only, cli/leaver-tokens.ts). Read from the
 * actual state only, so the deletion rules (which count the person for `maxDeletes`), the
 * permission planner and the filter planner see the same access and a revoke converges: once
 * it is done, nothing is left to revoke and the next plan is empty.
 */
import { managedFilterId } from "../../data-filters.js";
import { isEmptyGrant, type OrganizationPermission } from "../../permissions.js";
import type { Mapping } from "../../service/types.js";
import type { PlanContext } from "../context.js";
import { managesWorkspaces } from "../hand-made-grants.js";
import { workspaceMatcher } from "../safety.js";
import { managesDataFilters } from "./data-filters.js";

export interface LeaverAccess {
  /** The groups the mapping keeps: under `membership: additive`, those the desired state never names. */
  keptGroups: string[];
  /** Direct grants on a workspace of `permissions.workspaces`, when the run manages workspace permissions. */
  workspaces: boolean;
  /** Organization permissions the run may take away (MANAGE only with `allowManage`). */
  organization: boolean;
  /** Filters usersync made for them on the workspaces of `dataFilters.workspaces` it listed. */
  filters: boolean;
  /** The ids of their own API tokens, as listed for them (`actual.apiTokens`). */
  tokens: readonly string[];
}

/** Per planning run: who holds what, indexed once (a full run may look up many leavers). */
interface Held {
  named: Set<string> | undefined;
  workspaces: Set<string>;
  organization: Set<string>;
  filters: Set<string>;
}

const cache = new WeakMap<PlanContext, Held>();

/** Whether the desired state gives or takes organization permissions (only then are they managed). */
export function managesOrganization(ctx: Pick<PlanContext, "desired">): boolean {
  return (
    ctx.desired.groups.some((g) => g.organization !== undefined) ||
    ctx.desired.users.some((u) => u.state === "present" && u.organization !== undefined)
  );
}

/** Organization permissions a revoke takes away: all of them, but MANAGE only when allowed. */
export function revocableOrganization(
  ctx: Pick<PlanContext, "policy">,
  have: readonly OrganizationPermission[],
): OrganizationPermission[] {
  return ctx.policy.permissions.allowOrganizationManage ? [...have] : have.filter((p) => p !== "MANAGE");
}

function held(ctx: PlanContext): Held {
  const known = cache.get(ctx);
  if (known) return known;
  const out: Held = { named: undefined, workspaces: new Set(), organization: new Set(), filters: new Set() };
  if (ctx.policy.membership === "additive") {
    out.named = new Set(ctx.desired.groups.map((g) => g.id));
    for (const u of ctx.desired.users)
      if (u.state === "present") for (const g of u.groups ?? []) out.named.add(g);
  }
  const perms = ctx.actual.permissions;
  if (perms) {
    if (managesWorkspaces(ctx.desired, ctx.policy)) {
      const inScope = workspaceMatcher(ctx.policy.permissions.workspaces);
      for (const a of perms.assignments)
        if (a.assignee.type === "user" && inScope(a.workspace) && !isEmptyGrant(a))
          out.workspaces.add(a.assignee.id);
    }
    if (managesOrganization(ctx))
      for (const o of perms.organization ?? [])
        if (o.assignee.type === "user" && revocableOrganization(ctx, o.permissions).length > 0)
          out.organization.add(o.assignee.id);
  }
  const filters = ctx.actual.dataFilters;
  if (filters && ctx.policy.dataFilters && managesDataFilters(ctx)) {
    const inScope = workspaceMatcher(ctx.policy.dataFilters.workspaces);
    const listed = new Set(filters.workspaces);
    for (const f of filters.filters)
      if (
        f.assignee.type === "user" &&
        f.managed &&
        f.id === managedFilterId(f.workspace, f.assignee) &&
        inScope(f.workspace) &&
        listed.has(f.workspace)
      )
        out.filters.add(f.assignee.id);
  }
  cache.set(ctx, out);
  return out;
}

/** What the leaver holds that a revoke takes away, or undefined when nothing is left. */
export function leaverAccess(ctx: PlanContext, m: Mapping): LeaverAccess | undefined {
  const h = held(ctx);
  const named = h.named;
  const keptGroups = named === undefined ? [] : m.groups.filter((g) => !named.has(g));
  const access: LeaverAccess = {
    keptGroups,
    workspaces: h.workspaces.has(m.id),
    organization: h.organization.has(m.id),
    filters: h.filters.has(m.id),
    tokens: ctx.actual.apiTokens?.get(m.id) ?? [],
  };
  const any =
    keptGroups.length !== m.groups.length ||
    access.workspaces ||
    access.organization ||
    access.filters ||
    access.tokens.length > 0;
  return any ? access : undefined;
}
