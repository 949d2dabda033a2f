/**
 * The revert guard in a run (`policy.revertWindow`, plan/reverts.ts): what recent applies changed
 * is read from the state file before planning, and `apply` adds what its succeeded steps changed
 * after it ran, dropping what is older than the window.
 */
import type { Logger } from "pino";
import type { ApplyResult } from "../apply/types.js";
import { durationSeconds, type Config } from "../config/index.js";
import type { Plan, Policy, RecentInput } from "../plan/index.js";
import { changesOfRun, readState, withChanges, withStateLock, writeState } from "../state/index.js";

interface Runtime {
  config: Config;
  logger: Logger;
}

/** The planner's `recent` input: now and the recorded changes; undefined when the guard is off. */
export async function loadRecentChanges(runtime: Runtime, policy: Policy): Promise<RecentInput | undefined> {
  const file = runtime.config.state.file;
  if (file === undefined || policy.revertWindow === undefined) return undefined;
  const read = await readState(file);
  return { now: Date.now(), changes: read.data.changes ?? [] };
}

/** After apply: what its succeeded steps changed, remembered for `policy.revertWindow`. */
export async function recordChanges(
  runtime: Runtime,
  plan: Plan,
  result: ApplyResult,
  runId?: string,
): Promise<void> {
  const { config, logger } = runtime;
  const file = config.state.file;
  const window = config.policy.revertWindow;
  if (file === undefined) return;
  const windowMs = durationSeconds(window) * 1000;
  if (windowMs <= 0) return;
  const succeeded = new Set(result.outcomes.filter((o) => o.outcome === "succeeded").map((o) => o.stepId));
  const now = Date.now();
  const added = changesOfRun(plan, succeeded, now, runId);
  await withStateLock(file, async () => {
    const read = await readState(file);
    if (read.corrupt !== undefined) return; // recordRunState set it aside, or it was never ours
    const next = withChanges(read.data, added, now, windowMs);
    // Nothing added and nothing aged out: the file already says it (a run of no steps).
    if (added.length === 0 && (next.changes?.length ?? 0) === (read.data.changes?.length ?? 0)) return;
    await writeState(file, next);
  });
  logger.info({ file, changes: added.length }, "recent changes recorded for the revert guard");
}
