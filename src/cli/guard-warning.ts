import type { Logger } from "pino";
import { ExitCode } from "../errors.js";
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

/**
 * Full mode promises that the source is the whole truth: a person it names whom the plan cannot
 * manage (another mapping holds their login) makes the run end with exit 3, after everything
 * else was done, never a quiet "not planned". Returns the exit code to use.
 */
export function conflictExit(logger: Logger, plan: Plan, code: number): number {
  const clean = code === ExitCode.ok || code === ExitCode.changes;
  const emailChanges = plan.notices.filter((n) => n.kind === "emailChange").length;
  if (clean && emailChanges > 0) {
    logger.error(
      { emailChanges },
      `${emailChanges} new ${emailChanges === 1 ? "person has" : "people have"} the name of a login the file no longer lists: likely e-mail changes, not planned as second accounts (the plan's "Likely e-mail changes" section names them). Give each row the old account's id, or list the old e-mail; exit 3`,
    );
    return ExitCode.refused;
  }
  if (!clean || plan.mode !== "full" || !plan.conflicts) return code;
  logger.error(
    { conflicts: plan.conflicts },
    `${plan.conflicts} ${plan.conflicts === 1 ? "person" : "people"} of the desired state could not be managed: another mapping holds their login (the plan's Conflicts section names them). Remove or merge the duplicate mapping in the organization, or give the person the existing mapping's id; exit 3`,
  );
  return ExitCode.refused;
}

/**
 * The revert guard held steps back (plan/reverts.ts): one warning naming the flag, and with
 * `plan --detailed-exitcode` exit 3 like a tripped guard at apply. Returns the exit code to use.
 */
export function revertExit(logger: Logger, plan: Plan, code: number, detailed: boolean): number {
  const r = plan.reverts;
  if (r === undefined || r.wanted <= r.limit) return code;
  logger.warn(
    { heldBack: r.wanted, limit: r.limit, window: r.window },
    `revert guard: ${r.wanted} step(s) undo what a run within policy.revertWindow ${r.window} changed and are held back (the plan's revert guard section names the run). Read them, then --allow-reverts ${r.wanted} lets them through for one run`,
  );
  return detailed && (code === ExitCode.changes || code === ExitCode.ok) ? ExitCode.refused : code;
}
