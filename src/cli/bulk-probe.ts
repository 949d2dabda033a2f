/**
 * Whether the service has the bulk membership endpoints, asked only when a plan would use them:
 * one GET of the members of an existing group, the one with the fewest members (a small answer),
 * preferring a group the plan moves people in or out of. That group was just listed, so a 404 or
 * 405 means there is no such endpoint: one notice, and the caller plans again with one mapping
 * PUT per person. Without any group to ask about (an organization with none yet), the executor
 * finds out at its first bulk request instead (src/apply/run-members.ts).
 */
import type { Logger } from "pino";
import { isMembersStep, type Plan } from "../plan/index.js";
import type { ActualState, ServiceClient } from "../service/index.js";

export const PROBE_NOTICE = "no-bulk-membership";

/** The actual state with `bulkMembership: false` when the service lacks the endpoints; undefined when the plan can stay. */
export async function probeBulkMembership(o: {
  client: ServiceClient;
  actual: ActualState;
  plan: Plan;
  logger: Logger;
}): Promise<ActualState | undefined> {
  const targets = new Set(o.plan.steps.filter(isMembersStep).map((s) => s.target));
  if (targets.size === 0 || o.actual.bulkMembership === false) return undefined;
  const group = smallestGroup(o.actual, targets);
  if (group === undefined) return undefined;
  const read = await o.client.getGroupMembers(group);
  if (read.status === "read") return undefined;
  const status = read.status === "notFound" ? 404 : 405;
  o.logger.warn(
    { notice: PROBE_NOTICE, group, status },
    `this service has no bulk membership endpoints (GET .../userManagement/userGroups/${group}/members answered ${status}): each person's membership change is planned as one mapping PUT`,
  );
  return { ...o.actual, bulkMembership: false };
}

function smallestGroup(actual: ActualState, targets: ReadonlySet<string>): string | undefined {
  const size = new Map(actual.groups.map((g) => [g.id, 0]));
  for (const m of actual.mappings) for (const g of m.groups) size.set(g, (size.get(g) ?? 0) + 1);
  const existing = actual.groups.map((g) => g.id);
  const candidates = existing.some((id) => targets.has(id))
    ? existing.filter((id) => targets.has(id))
    : existing;
  return candidates.sort((a, b) => size.get(a)! - size.get(b)! || (a < b ? -1 : 1))[0];
}
