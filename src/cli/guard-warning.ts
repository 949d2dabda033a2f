import type { Logger } from "pino";
import type { Plan } from "../plan/index.js";

/** A tripped deletion guard is one warning on stderr (a log collector sees it), the plan has the names. */
export function warnGuardTripped(logger: Logger, plan: Plan): void {
  const { wanted, limit, managedUsers } = plan.deleteGuard;
  if (wanted <= limit) return;
  logger.warn(
    { heldBack: wanted, limit, managedUsers },
    `deletion guard: ${wanted} people to revoke or remove, ${limit} allowed (policy.maxDeletes): every deletion is held back. Read the plan's list, then --allow-deletes ${wanted} lifts the limit for one run`,
  );
}
