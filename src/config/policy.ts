/** The `policy` section (plus the password source) as the planner's `Policy`. */
import type { Policy } from "../plan/policy.js";
import type { Config } from "./schema.js";
import { durationSeconds } from "./values.js";

const guardLimitOf = (v: number | string): { count: number } | { percent: number } =>
  typeof v === "number" ? { count: v } : { percent: Number(v.slice(0, -1)) };

/** `permissions.workspaces` as globs: `all` (or `*`, alone or in a list) is every workspace. */
function workspaceGlobs(value: string | string[] | undefined): string[] {
  const list = value === undefined ? [] : typeof value === "string" ? [value] : value;
  return list.some((v) => v === "all" || v === "*") ? ["*"] : [...list];
}

export function toPolicy(
  config: Config,
  options: {
    allowDeletes?: number;
    allowPermissionRemovals?: number;
    allowFilterWidenings?: number;
    allowReverts?: number;
  } = {},
): Policy {
  const p = config.policy;
  const scope: Policy["scope"] = {};
  if (p.scope.emailDomains)
    scope.emailDomains = p.scope.emailDomains.map((d) => d.toLowerCase().replace(/^@/, ""));
  if (p.scope.idPatterns) scope.idPatterns = p.scope.idPatterns;
  if (p.scope.groups) scope.groups = p.scope.groups;
  const policy: Policy = {
    mode: p.mode,
    membership: p.membership,
    deletions: p.deletions,
    unlinkedCredentials: p.unlinkedCredentials,
    maxDeletes: guardLimitOf(p.maxDeletes),
    scope,
    protect: [...p.protect],
    groups: { ...p.groups },
    passwords: config.identity.passwords,
    permissions: {
      workspaces: workspaceGlobs(config.permissions.workspaces),
      maxRemovals: guardLimitOf(config.permissions.maxRemovals),
      allowOrganizationManage: config.permissions.organization.allowManage,
    },
  };
  // Only with a scope: a run without data filters plans, lists and renders exactly as before.
  if (config.dataFilters.workspaces !== undefined)
    policy.dataFilters = {
      workspaces: workspaceGlobs(config.dataFilters.workspaces),
      maxWidenings: guardLimitOf(config.dataFilters.maxWidenings),
    };
  if (options.allowFilterWidenings !== undefined && policy.dataFilters)
    policy.dataFilters.allowWidenings = options.allowFilterWidenings;
  if (options.allowDeletes !== undefined) policy.allowDeletes = options.allowDeletes;
  if (options.allowPermissionRemovals !== undefined)
    policy.permissions.allowRemovals = options.allowPermissionRemovals;
  const revokeAfter = durationSeconds(p.revokeAfter);
  if (revokeAfter > 0) policy.revokeAfter = { text: String(p.revokeAfter), seconds: revokeAfter };
  const revertWindow = durationSeconds(p.revertWindow);
  if (revertWindow > 0) policy.revertWindow = { text: String(p.revertWindow), seconds: revertWindow };
  if (options.allowReverts !== undefined) policy.allowReverts = options.allowReverts;
  return policy;
}

/**
 * Settings that do nothing under the rest of the policy, each said once per run so nobody
 * waits for a prune or a clean-up that this mode never does (docs/configuration.md).
 */
export function ineffectiveSettings(policy: Policy): string[] {
  const notes: string[] = [];
  if (policy.mode !== "full" && policy.groups.prune)
    notes.push(
      "policy.groups.prune has no effect in incremental mode: groups are pruned only with policy.mode full (or --mode full)",
    );
  if (policy.mode !== "full" && policy.unlinkedCredentials === "delete")
    notes.push(
      "policy.unlinkedCredentials: delete has no effect in incremental mode: unlinked logins are deleted only with policy.mode full (or --mode full)",
    );
  else if (policy.unlinkedCredentials === "delete" && policy.deletions === "none")
    notes.push("policy.unlinkedCredentials: delete has no effect with policy.deletions: none");
  return notes;
}
