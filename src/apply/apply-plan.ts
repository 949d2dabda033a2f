/**
 * The executor: runs a plan's DAG. A step starts as soon as every step it depends on succeeded,
 * within `concurrency` (the scheduler, `scheduler.ts`, decides which); the client adds its own
 * rate limit and retries. `applyPlan` reads as: list the steps → schedule → run → outcome.
 */
import type { Logger } from "pino";
import { HttpError } from "../errors.js";
import { nounOf } from "../plan/kinds.js";
import type { Plan, Step } from "../plan/types.js";
import type { ClientStats, ServiceClient } from "../service/types.js";
import { logStep, notRun, toStepError } from "./outcomes.js";
import { createMembersRun, type MembersRun } from "./run-members.js";
import { runStep, StepFailure } from "./run-step.js";
import {
  createSchedule,
  nextReady,
  progressOf,
  settle,
  settleUnstarted,
  start,
  stop,
  type Node,
  type Schedule,
} from "./scheduler.js";
import { checkPlanProfile } from "./stale.js";
import type { ApplyResult, Journal, PasswordProvider, Progress, StepOutcome } from "./types.js";

export interface ApplyOptions {
  plan: Plan;
  client: ServiceClient;
  /** Steps running at once (the client limits requests per second besides). */
  concurrency: number;
  /** Consecutive failed steps that stop the run (default 20). */
  circuitBreaker?: number;
  passwords: PasswordProvider;
  /** Step ids found stale (`findStaleSteps`): reported, not carried out. */
  stale?: ReadonlySet<string>;
  journal?: Journal;
  logger?: Logger;
  onProgress?: (p: Progress) => void;
  /** Test hook: a clock in ms. */
  now?: () => number;
  /** Aborted (SIGINT/SIGTERM): no new step starts; running ones finish and are recorded. */
  signal?: AbortSignal;
}

export const DEFAULT_CIRCUIT_BREAKER = 20;

/** What running a step needs besides the schedule. */
interface RunContext {
  client: ServiceClient;
  passwords: PasswordProvider;
  now: () => number;
  signal: AbortSignal | undefined;
  /** authenticationIds returned by createCredentials steps, for the mappings that wait for them. */
  authIds: Map<string, string>;
  /** What the bulk membership steps share (run-members.ts). */
  members: MembersRun;
  /** After each settled step (progress). */
  afterSettle: () => void;
}

export async function applyPlan(options: ApplyOptions): Promise<ApplyResult> {
  const { plan, client, journal, logger } = options;
  const now = options.now ?? (() => performance.now());
  checkPlanProfile({ plan, profile: client.profile });
  const started = now();
  const statsBefore = client.stats();
  // Held-back and stale steps are settled here, before anything runs: their dependents never start.
  const schedule = createSchedule({
    steps: plan.steps,
    concurrency: options.concurrency,
    circuitBreaker: options.circuitBreaker ?? DEFAULT_CIRCUIT_BREAKER,
    preset: (step) => presetOutcome(step, options),
    onSettled: (o) => {
      journal?.record(o);
      logStep(logger, o);
    },
  });
  const progress = (): void =>
    options.onProgress?.(progressOf(schedule, client.stats().retries - statsBefore.retries));
  progress();
  await run(schedule, {
    client,
    passwords: options.passwords,
    now,
    signal: options.signal,
    authIds: new Map(),
    members: createMembersRun((message) => logger?.warn({ notice: "no-bulk-membership" }, message)),
    afterSettle: progress,
  });
  settleUnstarted(schedule);
  progress();
  return outcome(schedule, { client, statsBefore, durationMs: Math.round(now() - started) });
}

/** The run as one value: every step's outcome in plan order, the counts, and why it stopped. */
function outcome(
  s: Schedule,
  run: { client: ServiceClient; statsBefore: ClientStats; durationMs: number },
): ApplyResult {
  const statsAfter = run.client.stats();
  const result: ApplyResult = {
    outcomes: s.nodes.map((n) => n.outcome!),
    counts: s.counts,
    durationMs: run.durationMs,
    requests: statsAfter.requests - run.statsBefore.requests,
    retries: statsAfter.retries - run.statsBefore.retries,
  };
  if (s.stop) {
    result.stoppedBy = s.stop.by;
    result.stopReason = s.stop.reason;
  }
  return result;
}

const INTERRUPTED = {
  by: "interrupted",
  reason: "interrupted by a signal: no new steps were started; run again to finish, it converges",
} as const;

/** Starts ready steps as slots free up; resolves when nothing runs and nothing more may start. */
function run(s: Schedule, ctx: RunContext): Promise<void> {
  return new Promise<void>((resolve) => {
    const pump = (): void => {
      if (ctx.signal?.aborted) stop(s, INTERRUPTED);
      for (let node = nextReady(s); node; node = nextReady(s)) {
        const started = node;
        start(s);
        void execute(started, s, ctx).then((o) => {
          settle(s, started, o);
          ctx.afterSettle();
          pump();
        });
      }
      if (s.running === 0) resolve();
    };
    pump();
  });
}

/** Runs one step to an outcome value; a fatal error (401/403, a password not stored) stops the run. */
async function execute(node: Node, s: Schedule, ctx: RunContext): Promise<StepOutcome> {
  const { step } = node;
  let attempts = 0;
  const t0 = ctx.now();
  const base = { stepId: step.id, kind: step.kind, target: step.target };
  try {
    const res = await runStep(step, {
      client: ctx.client,
      passwords: ctx.passwords,
      authIds: ctx.authIds,
      members: ctx.members,
      signal: ctx.signal,
      callOptions: { onAttempt: () => void (attempts += 1) },
    });
    if (res.authenticationId !== undefined) ctx.authIds.set(step.id, res.authenticationId);
    const o: StepOutcome = {
      ...base,
      outcome: "succeeded",
      attempts,
      durationMs: Math.round(ctx.now() - t0),
    };
    if (res.recovered) o.recovered = res.recovered;
    return o;
  } catch (err) {
    if (err instanceof HttpError && err.fatal) {
      stop(s, {
        by: "fatal",
        reason: `fatal error: ${err.message}; check the token and its permissions. No new steps were started`,
      });
    } else if (err instanceof StepFailure && err.fatal) {
      stop(s, { by: "fatal", reason: `fatal error: ${err.message}. No new steps were started` });
    }
    const durationMs = Math.round(ctx.now() - t0);
    return { ...base, outcome: "failed", attempts, durationMs, error: toStepError(err) };
  }
}

/** A held-back or stale step keeps that outcome even when it also depends on another one. */
function presetOutcome(step: Step, options: ApplyOptions): StepOutcome | undefined {
  if (step.status === "heldBack")
    return notRun(
      step,
      "heldBack",
      step.revertsRecent
        ? revertHeldBackReason(options.plan.reverts)
        : nounOf(step.kind) === "dataFilter"
          ? wideningsHeldBackReason(options.plan.dataFilterGuard)
          : nounOf(step.kind) === "permissions"
            ? removalsHeldBackReason(options.plan.permissionGuard)
            : heldBackReason(options.plan.deleteGuard),
    );
  if (!options.stale?.has(step.id)) return undefined;
  return notRun(
    step,
    "stale",
    "stale: an object this step relies on changed since the plan was made; re-run plan",
  );
}

/** Which limit held a data filter widening back and the flag that lifts it, in words. */
function wideningsHeldBackReason(guard: Plan["dataFilterGuard"]): string {
  const { wanted = 0, limit = 0, managedFilters = 0 } = guard ?? {};
  return (
    `held back by the data filter widening limit: ${wanted} widening(s), ${limit} allowed ` +
    `(dataFilters.maxWidenings, or --allow-filter-widenings when given, of ${managedFilters} managed filter(s)); ` +
    `run with --allow-filter-widenings ${wanted} to carry them out`
  );
}

/** Which limit held a permission removal back and the flag that lifts it, in words. */
function removalsHeldBackReason(guard: Plan["permissionGuard"]): string {
  const { wanted = 0, limit = 0, managedAssignments = 0 } = guard ?? {};
  return (
    `held back by the permission removal limit: ${wanted} removal(s), ${limit} allowed ` +
    `(permissions.maxRemovals, or --allow-permission-removals when given, of ${managedAssignments} managed assignment(s)); ` +
    `run with --allow-permission-removals ${wanted} to carry them out`
  );
}

/** The revert guard held a step back: the window and the flag that lifts it, in words. */
function revertHeldBackReason(reverts: Plan["reverts"]): string {
  const { wanted = 0, limit = 0, window = "" } = reverts ?? {};
  return (
    `held back by the revert guard: ${wanted} step(s) undo what a run within policy.revertWindow ${window} changed, ` +
    `${limit} allowed; run with --allow-reverts ${wanted} to carry them out`
  );
}

/** Which limit held a deletion back and the flag that lifts it, in words. */
function heldBackReason(guard: Plan["deleteGuard"]): string {
  const { wanted, limit, managedUsers } = guard;
  return (
    `held back by the deletion limit: ${wanted} user(s) to delete, ${limit} allowed ` +
    `(policy.maxDeletes, or --allow-deletes when given, of ${managedUsers} managed user(s)); ` +
    `run with --allow-deletes ${wanted} to carry them out`
  );
}
