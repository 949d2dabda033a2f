/** The `policy` section (plus the password source) as the planner's `Policy`. */
import type { Policy } from "../plan/policy.js";
import type { Config } from "./schema.js";

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
  return policy;
}
