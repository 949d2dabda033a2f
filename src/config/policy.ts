/** The `policy` section (plus the password source) as the planner's `Policy`. */
import type { Policy } from "../plan/policy.js";
import type { Config } from "./schema.js";
import { durationSeconds } from "./values.js";

export function toPolicy(config: Config, options: { allowDeletes?: number } = {}): Policy {
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
    maxDeletes:
      typeof p.maxDeletes === "number"
        ? { count: p.maxDeletes }
        : { percent: Number(p.maxDeletes.slice(0, -1)) },
    scope,
    protect: [...p.protect],
    groups: { ...p.groups },
    passwords: config.identity.passwords,
  };
  if (options.allowDeletes !== undefined) policy.allowDeletes = options.allowDeletes;
  const revokeAfter = durationSeconds(p.revokeAfter);
  if (revokeAfter > 0) policy.revokeAfter = { text: String(p.revokeAfter), seconds: revokeAfter };
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
