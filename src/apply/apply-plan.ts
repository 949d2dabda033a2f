/**
 * The executor: runs a plan's DAG. A step starts as soon as every step it depends on succeeded,
 * within `concurrency`; the client adds its own rate limit and retries. Work is linear in the
 * number of steps and edges (a dependents index and a ready queue; nothing scans the plan per
 * completion), so 100,000-step plans are fine.
 */
import type { Logger } from "pino";
import { HttpError, InternalError } from "../errors.js";
import type { Plan, Step } from "../plan/types.js";
import type { ServiceClient } from "../service/types.js";
import { logStep, notRun, rootOf, skippedBecause, toStepError, type Root } from "./outcomes.js";
import { runStep, StepFailure } from "./run-step.js";
import { checkPlanProfile } from "./stale.js";
import {
  emptyCounts,
  type ApplyResult,
  type Journal,
  type PasswordProvider,
  type Progress,
  type SkipCause,
  type StepOutcome,
} from "./types.js";

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

interface Node {
  step: Step;
  index: number;
  /** Dependencies (deduplicated) not yet succeeded. */
  waiting: number;
  dependents: number[];
  outcome?: StepOutcome;
}

export async function applyPlan(options: ApplyOptions): Promise<ApplyResult> {
  const { plan, client, passwords, journal, logger, onProgress } = options;
  const now = options.now ?? (() => performance.now());
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  const breakerLimit = options.circuitBreaker ?? DEFAULT_CIRCUIT_BREAKER;
  checkPlanProfile({ plan, profile: client.profile });
  const started = now();
  const statsBefore = client.stats();
  const nodes = buildGraph(plan.steps);
  const authIds = new Map<string, string>();
  const counts = emptyCounts();
  const ready: number[] = [];
  const roots = new Map<string, Root>();
  let readyHead = 0;
  let running = 0;
  let doneCount = 0;
  let consecutiveFailures = 0;
  let stoppedBy: ApplyResult["stoppedBy"];
  let stopReason: string | undefined;

  // A held-back or stale step keeps that outcome even when it also depends on another one.
  const presets = new Map<Node, StepOutcome>();
  for (const n of nodes) {
    if (n.step.status === "heldBack") {
      presets.set(n, notRun(n.step, "heldBack", heldBackReason(plan.deleteGuard)));
    } else if (options.stale?.has(n.step.id)) {
      presets.set(
        n,
        notRun(
          n.step,
          "stale",
          "stale: an object this step relies on changed since the plan was made; re-run plan",
        ),
      );
    }
  }

  let notStarted = 0;
  // Steps settled as "not started" after a stop are not done: the bar must not jump to the total.
  const progress = (): void =>
    onProgress?.({
      total: nodes.length,
      done: doneCount - notStarted,
      running,
      counts: { ...counts },
      retries: client.stats().retries - statsBefore.retries,
      notStarted,
    });

  /** Records an outcome, then settles dependents: ready when all deps succeeded, skipped otherwise. */
  const finish = (node: Node, outcome: StepOutcome): void => {
    const stack: Array<[Node, StepOutcome]> = [[node, outcome]];
    while (stack.length > 0) {
      const [n, o] = stack.pop()!;
      if (n.outcome) continue;
      n.outcome = o;
      counts[o.outcome] += 1;
      doneCount += 1;
      if (o.cause === "stopped") notStarted += 1;
      journal?.record(o);
      logStep(logger, o);
      for (const d of n.dependents) {
        const dep = nodes[d]!;
        if (dep.outcome) continue;
        if (o.outcome === "succeeded") {
          dep.waiting -= 1;
          if (dep.waiting === 0) ready.push(d);
        } else {
          const preset = presets.get(dep);
          if (preset) {
            stack.push([dep, preset]);
            continue;
          }
          const root = rootOf(o, roots);
          roots.set(dep.step.id, root);
          stack.push([dep, skippedBecause(dep.step, o, root)]);
        }
      }
    }
  };

  // Held-back and stale steps are settled before anything runs, so their dependents never start.
  for (const [n, o] of presets) finish(n, o);
  for (const n of nodes) if (!n.outcome && n.waiting === 0) ready.push(n.index);
  progress();

  await new Promise<void>((resolve) => {
    const pump = (): void => {
      if (!stoppedBy && options.signal?.aborted) {
        stoppedBy = "interrupted";
        stopReason = "interrupted by a signal; no new steps were started (run again to finish: it converges)";
      }
      while (!stoppedBy && running < concurrency && readyHead < ready.length) {
        const node = nodes[ready[readyHead++]!]!;
        if (node.outcome) continue;
        running += 1;
        void execute(node).then((o) => {
          running -= 1;
          // A 429 is the service asking for a slower pace (the client slows down), not a broken step.
          if (o.outcome === "failed" && o.error?.status !== 429) consecutiveFailures += 1;
          else if (o.outcome !== "failed") consecutiveFailures = 0;
          if (!stoppedBy && consecutiveFailures >= breakerLimit) {
            stoppedBy = "circuitBreaker";
            stopReason = `circuit breaker: ${consecutiveFailures} consecutive steps failed (limit ${breakerLimit}); no new steps were started`;
          }
          finish(node, o);
          progress();
          pump();
        });
      }
      if (running === 0) resolve();
    };
    pump();
  });

  // Whatever did not run: the run stopped, or a dependency cycle kept it waiting.
  for (const n of nodes) {
    if (n.outcome) continue;
    const cause: SkipCause = stoppedBy ? "stopped" : "cycle";
    const reason = stoppedBy
      ? `not started: the run stopped (${stopReason})`
      : "not started: its dependencies form a cycle";
    roots.set(n.step.id, { desc: reason, cause });
    finish(n, { ...notRun(n.step, "skipped", reason), cause });
  }
  progress();

  const statsAfter = client.stats();
  const result: ApplyResult = {
    outcomes: nodes.map((n) => n.outcome!),
    counts,
    durationMs: Math.round(now() - started),
    requests: statsAfter.requests - statsBefore.requests,
    retries: statsAfter.retries - statsBefore.retries,
  };
  if (stoppedBy) {
    result.stoppedBy = stoppedBy;
    result.stopReason = stopReason!;
  }
  return result;

  async function execute(node: Node): Promise<StepOutcome> {
    const { step } = node;
    let attempts = 0;
    const t0 = now();
    const base = { stepId: step.id, kind: step.kind, target: step.target };
    try {
      const res = await runStep(step, {
        client,
        passwords,
        authIds,
        callOptions: { onAttempt: () => void (attempts += 1) },
      });
      if (res.authenticationId !== undefined) authIds.set(step.id, res.authenticationId);
      const o: StepOutcome = { ...base, outcome: "succeeded", attempts, durationMs: Math.round(now() - t0) };
      if (res.recovered) o.recovered = res.recovered;
      return o;
    } catch (err) {
      if (!stoppedBy && err instanceof HttpError && err.fatal) {
        stoppedBy = "fatal";
        stopReason = `fatal error: ${err.message}; check the token and its permissions. No new steps were started`;
      } else if (!stoppedBy && err instanceof StepFailure && err.fatal) {
        stoppedBy = "fatal";
        stopReason = `fatal error: ${err.message}. No new steps were started`;
      }
      return {
        ...base,
        outcome: "failed",
        attempts,
        durationMs: Math.round(now() - t0),
        error: toStepError(err),
      };
    }
  }
}

function buildGraph(steps: readonly Step[]): Node[] {
  const byId = new Map<string, number>();
  const nodes: Node[] = steps.map((step, index) => {
    if (byId.has(step.id)) throw new InternalError({ message: `plan has two steps with id ${step.id}` });
    byId.set(step.id, index);
    return { step, index, waiting: 0, dependents: [] };
  });
  for (const node of nodes) {
    const deps = new Set(node.step.dependsOn);
    // A mapping that takes its authenticationId from a credentials create must wait for it.
    const ref =
      "after" in node.step && "authenticationId" in node.step.after
        ? node.step.after.authenticationId
        : undefined;
    if (ref !== undefined && typeof ref === "object") deps.add(ref.fromStep);
    for (const dep of deps) {
      const d = byId.get(dep);
      if (d === undefined)
        throw new InternalError({ message: `plan step ${node.step.id} depends on unknown step ${dep}` });
      nodes[d]!.dependents.push(node.index);
      node.waiting += 1;
    }
  }
  return nodes;
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
