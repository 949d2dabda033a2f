/** Helpers for emulator-backed executor tests: desired-state builders and a plan-then-apply round. */
import type { DesiredGroup, DesiredState, DesiredUser } from "../../src/desired/types.js";
import { applyPlan } from "../../src/apply/index.js";
import { listActualState } from "../../src/service/index.js";
import type { ApplyOptions, ApplyResult } from "../../src/apply/index.js";
import { defaultPolicy, permissionListing, plan, type Plan, type Policy } from "../../src/plan/index.js";
import type { ServiceClient } from "../../src/service/types.js";
import { noPasswords } from "./builders.js";

export function aDesiredUser(u: Partial<DesiredUser> & { email: string; id: string }): DesiredUser {
  return {
    idDerived: false,
    identity: "builtin",
    state: "present",
    source: { file: "users.yaml", line: 1 },
    ...u,
  };
}

export function aDesiredGroup(g: Partial<DesiredGroup> & { id: string }): DesiredGroup {
  return { source: { file: "users.yaml", line: 1 }, ...g };
}

export function desiredOf(users: DesiredUser[], groups: DesiredGroup[] = []): DesiredState {
  return { users, groups, files: ["users.yaml"] };
}

export function aPolicy(overrides: Partial<Policy> = {}): Policy {
  return { ...defaultPolicy, passwords: "none", maxDeletes: { percent: 100 }, ...overrides };
}

/** Lists the service, plans against it and applies the plan: one `usersync apply` run. */
export async function planAndApply(options: {
  client: ServiceClient;
  desired: DesiredState;
  policy: Policy;
  apply?: Partial<ApplyOptions>;
}): Promise<{ plan: Plan; result: ApplyResult }> {
  const { client, desired, policy } = options;
  // Permissions are listed only when the desired state carries some (as the CLI does).
  const actual = await listActualState(client, { permissions: permissionListing(desired, policy, 500) });
  const p = plan({ desired, actual, policy, profile: client.profile });
  const result = await applyPlan({
    plan: p,
    client,
    concurrency: 4,
    passwords: noPasswords,
    ...options.apply,
  });
  return { plan: p, result };
}
