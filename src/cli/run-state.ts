/**
 * The state file in a run (`state.file`, `policy.revokeAfter`): checked before anything is sent,
 * read before planning (plan and apply), written by `apply` once the listing and the plan are
 * complete and before the first change is sent, so a run that fails to read its source or to
 * list the service never writes it, and a run killed half-way has already recorded what it saw.
 */
import type { Logger } from "pino";
import type { Config } from "../config/index.js";
import { ConfigError } from "../errors.js";
import { prepareOutputPaths } from "../files.js";
import type { Evidence } from "../desired/index.js";
import type { ApplyResult } from "../apply/index.js";
import { revokedAccess, type GraceInput, type Plan, type Policy } from "../plan/index.js";
import {
  keepCorrupt,
  mergeState,
  readState,
  withRemovals,
  withStateLock,
  writeState,
  type RemovalRecord,
} from "../state/index.js";

/** What these need of a run (pipeline's Runtime, without importing it back). */
interface Runtime {
  config: Config;
  logger: Logger;
}

/** The state file's folder made and writable, the path not a folder: else exit 4, nothing sent. */
export async function prepareStateFile(config: Config): Promise<void> {
  if (config.state.file !== undefined) await prepareOutputPaths({ "state.file": config.state.file });
}

/** The planner's `grace` input: now, and who the state file says is missing since when. */
export async function loadGrace(runtime: Runtime, policy: Policy): Promise<GraceInput | undefined> {
  const { logger } = runtime;
  const file = runtime.config.state.file;
  if (policy.revokeAfter === undefined || file === undefined) {
    // With a directory source it still remembers the picked groups' sizes (recordGroupSizes).
    if (file !== undefined && runtime.config.source.type === "file")
      logger.warn(
        { notice: "no-effect" },
        "state.file has no effect without policy.revokeAfter: nobody waits for a grace period",
      );
    return undefined;
  }
  const read = await readState(file);
  if (read.missing)
    logger.info({ file }, "no state file yet: a person missing from the source starts the grace period now");
  if (read.corrupt !== undefined)
    logger.warn(
      { file, problem: read.corrupt },
      `state.file ${file} is not usable (${read.corrupt}): read as empty, so everyone missing from the source starts the grace period now and nobody is revoked early; apply keeps the old file as ${file}.corrupt`,
    );
  return { now: Date.now(), people: read.data.people };
}

/** Writes what the plan saw (pending, due, created) into the state file, merged under its lock. */
export async function recordRunState(runtime: Runtime, plan: Plan): Promise<void> {
  const { logger } = runtime;
  const grace = plan.grace;
  if (grace === undefined) return;
  const file = runtime.config.state.file;
  if (file === undefined) {
    logger.warn("the plan has a grace period (policy.revokeAfter) but state.file is not set: not recorded");
    return;
  }
  try {
    await withStateLock(file, async () => {
      const read = await readState(file);
      if (read.corrupt !== undefined)
        logger.warn({ file, kept: await keepCorrupt(file) }, "the unusable state file was set aside");
      const merged = mergeState(read.data, plan)!;
      if ("stale" in merged) return logger.info({ file }, `state file not written: ${merged.stale}`);
      await writeState(file, merged.next);
      const { pending, due } = grace;
      logger.info(
        { file, pending: pending.length, due: due.length, remembered: merged.next.people.size },
        "state file written",
      );
    });
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ConfigError({
      message: `state.file ${file} cannot be written (${code}): nothing was sent. Fix the folder's permissions or the volume and run again.`,
    });
  }
}

/**
 * After a successful apply: the members each picked directory group had, so the next run can
 * refuse a group that suddenly reads empty (src/desired/sources/group-sizes.ts). Written only
 * after success, so a bad read never becomes the yardstick. Nothing to write for a file source.
 */
export async function recordGroupSizes(runtime: Runtime, evidence: Evidence | undefined): Promise<void> {
  const file = runtime.config.state.file;
  if (evidence === undefined || Object.keys(evidence.groupSizes).length === 0) return;
  if (file === undefined) {
    runtime.logger.warn(
      { notice: "no-state-file" },
      "state.file is not set: the picked groups' sizes are not remembered, so a group that suddenly reads empty cannot be told from one that emptied (docs/sources.md)",
    );
    return;
  }
  await withStateLock(file, async () => {
    const read = await readState(file);
    if (sameSizes(read.data.groupSizes, evidence.groupSizes)) return; // the file already says it
    await writeState(file, { ...read.data, groupSizes: { ...evidence.groupSizes } });
  });
  runtime.logger.info({ file, groups: Object.keys(evidence.groupSizes).length }, "group sizes recorded");
}

function sameSizes(
  a: Readonly<Record<string, number>> | undefined,
  b: Readonly<Record<string, number>>,
): boolean {
  if (a === undefined || Object.keys(a).length !== Object.keys(b).length) return false;
  return Object.entries(b).every(([k, n]) => a[k] === n);
}

/** The picked groups' sizes at the last successful apply, from the state file; undefined without one. */
export async function lastGroupSizes(config: Config): Promise<Record<string, number> | undefined> {
  if (config.state.file === undefined) return undefined;
  return (await readState(config.state.file)).data.groupSizes;
}

/**
 * After an apply: each leaver all of whose access steps succeeded (revoked grants, memberships
 * removed, filters and login deleted), with the time the run finished them and its run id, so a
 * review can date the rows they lost (docs/audits.md "Dated removals"). Nothing without state.file.
 */
export async function recordRemovals(
  runtime: Runtime,
  plan: Plan,
  result: ApplyResult,
  run: { id: string; at: number },
): Promise<void> {
  const file = runtime.config.state.file;
  const succeeded = new Set(result.outcomes.filter((o) => o.outcome === "succeeded").map((o) => o.stepId));
  const revoked = revokedAccess(plan, succeeded) ?? [];
  if (file === undefined || revoked.length === 0) return;
  const gone = new Map((plan.grace?.due ?? []).map((d) => [d.target, Date.parse(d.since)]));
  const records = new Map<string, RemovalRecord>();
  for (const id of revoked) {
    const goneSince = gone.get(`mapping:${id}`);
    records.set(`mapping:${id}`, {
      at: run.at,
      runId: run.id,
      ...(goneSince !== undefined ? { goneSince } : {}),
    });
  }
  try {
    await withStateLock(file, async () => {
      const read = await readState(file);
      await writeState(file, withRemovals(read.data, records));
    });
  } catch (err) {
    // The changes are made: the run's outcome stands, only the review cannot date these removals.
    runtime.logger.warn(
      { file, err: (err as Error).message },
      "the removals could not be recorded in the state file: a review will not date them (docs/audits.md)",
    );
    return;
  }
  // The run's logger carries its runId (apply.ts).
  runtime.logger.info({ file, people: records.size }, "removals recorded in the state file");
}
