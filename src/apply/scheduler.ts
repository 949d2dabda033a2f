/**
 * The executor's scheduler: which step may start, and what follows when one settles. It knows
 * nothing of HTTP; `applyPlan` asks it for ready steps, starts them, and settles their outcomes.
 * Work is linear in the number of steps and edges (a dependents index and a ready queue; nothing
 * scans the plan per completion), so 100,000-step plans are fine. All its state is one
 * `Schedule` object, changed only through the operations below.
 */
import { InternalError } from "../errors.js";
import type { Step } from "../plan/types.js";
import { notRun, rootOf, skippedBecause, type Root } from "./outcomes.js";
import { admit, fewestStepsFirst, indexPeople, NOBODY, openNext, settledFor, type People } from "./people.js";
import {
  emptyCounts,
  type ApplyResult,
  type OutcomeCounts,
  type Progress,
  type StepOutcome,
} from "./types.js";

export interface Node {
  step: Step;
  index: number;
  /** The person the step belongs to (people.ts), or NOBODY. */
  person: number;
  /** Dependencies (deduplicated) not yet succeeded. */
  waiting: number;
  dependents: number[];
  outcome?: StepOutcome;
}

export type StopCause = NonNullable<ApplyResult["stoppedBy"]>;

export interface Schedule {
  nodes: Node[];
  /** Held-back and stale outcomes, by node: kept even when a dependency also did not succeed. */
  presets: Map<Node, StepOutcome>;
  /**
   * Node indexes whose dependencies all succeeded, in the order they became ready: steps of
   * people already opened and steps of nobody. Ready steps of other people wait in `people`.
   */
  ready: number[];
  readyHead: number;
  people: People;
  running: number;
  /** Steps with an outcome, and of those, the ones settled as "not started" after a stop. */
  settled: number;
  notStarted: number;
  counts: OutcomeCounts;
  /** Root causes of skipped steps, by step id, so long chains name the first failure. */
  roots: Map<string, Root>;
  consecutiveFailures: number;
  limits: { concurrency: number; circuitBreaker: number };
  stop?: { by: StopCause; reason: string };
  /** Called once per outcome, in the order they settle (journal, log). */
  onSettled: (o: StepOutcome) => void;
}

export interface ScheduleOptions {
  steps: readonly Step[];
  concurrency: number;
  circuitBreaker: number;
  /** The outcome a step has before anything runs (held back, stale), if any. */
  preset: (step: Step) => StepOutcome | undefined;
  onSettled: (o: StepOutcome) => void;
}

/** Builds the graph and settles the preset steps, so their dependents never start. */
export function createSchedule(options: ScheduleOptions): Schedule {
  const nodes = buildGraph(options.steps);
  const { personOf, people } = indexPeople(nodes);
  for (const n of nodes) n.person = personOf[n.index]!;
  const presets = new Map<Node, StepOutcome>();
  for (const n of nodes) {
    const o = options.preset(n.step);
    if (o) presets.set(n, o);
  }
  const s: Schedule = {
    nodes,
    presets,
    ready: [],
    readyHead: 0,
    people,
    running: 0,
    settled: 0,
    notStarted: 0,
    counts: emptyCounts(),
    roots: new Map(),
    consecutiveFailures: 0,
    limits: {
      concurrency: Math.max(1, Math.floor(options.concurrency)),
      circuitBreaker: options.circuitBreaker,
    },
    onSettled: options.onSettled,
  };
  for (const [n, o] of presets) record(s, n, o);
  for (const n of nodes) if (!n.outcome && n.waiting === 0) makeReady(s, n);
  fewestStepsFirst(s.people);
  return s;
}

function makeReady(s: Schedule, n: Node): void {
  if (admit(s.people, n.person, n.index)) s.ready.push(n.index);
}

/**
 * The next step to start, or none: the run stopped, `concurrency` are running, or none is ready.
 * Whole people first: a ready step of an opened person (or of nobody) before a new person's, and
 * a new person only while fewer than `concurrency` are open, or when nothing runs at all (the
 * open ones all wait for something else: never a standstill).
 */
export function nextReady(s: Schedule): Node | undefined {
  const { concurrency } = s.limits;
  while (!s.stop && s.running < concurrency) {
    while (s.readyHead < s.ready.length) {
      const node = s.nodes[s.ready[s.readyHead++]!]!;
      if (!node.outcome) return node;
    }
    if (s.people.open >= concurrency && s.running > 0) return undefined;
    const parked = openNext(s.people);
    if (parked === undefined) return undefined;
    s.ready.push(...parked);
  }
  return undefined;
}

/** A step was handed to the runner: it counts against `concurrency` until it settles. */
export function start(s: Schedule): void {
  s.running += 1;
}

/** A started step ended: counts it for the circuit breaker, then records it and its consequences. */
export function settle(s: Schedule, node: Node, o: StepOutcome): void {
  s.running -= 1;
  // A 429 is the service asking for a slower pace (the client slows down), not a broken step.
  if (o.outcome === "failed" && o.error?.status !== 429) s.consecutiveFailures += 1;
  else if (o.outcome !== "failed") s.consecutiveFailures = 0;
  const { circuitBreaker } = s.limits;
  if (s.consecutiveFailures >= circuitBreaker) {
    stop(s, {
      by: "circuitBreaker",
      reason: `circuit breaker: ${s.consecutiveFailures} consecutive steps failed, the limit is ${circuitBreaker}; no new steps were started`,
    });
  }
  record(s, node, o);
}

/** No new step starts from now on; the first stop's cause is the one reported. */
export function stop(s: Schedule, cause: { by: StopCause; reason: string }): void {
  s.stop ??= cause;
}

/** Whatever did not run when nothing is running any more: the run stopped, or a cycle kept it waiting. */
export function settleUnstarted(s: Schedule): void {
  for (const n of s.nodes) {
    if (n.outcome) continue;
    const cause = s.stop ? "stopped" : "cycle";
    const reason = s.stop
      ? `not started: the run stopped: ${s.stop.reason}`
      : "not started: its dependencies form a cycle";
    s.roots.set(n.step.id, { desc: reason, cause });
    record(s, n, { ...notRun(n.step, "skipped", reason), cause });
  }
}

/** Steps settled as "not started" after a stop are not done: the bar must not jump to the total. */
export function progressOf(s: Schedule, retries: number): Progress {
  return {
    total: s.nodes.length,
    done: s.settled - s.notStarted,
    running: s.running,
    counts: { ...s.counts },
    retries,
    notStarted: s.notStarted,
  };
}

/** Records an outcome, then settles dependents: ready when all deps succeeded, skipped otherwise. */
function record(s: Schedule, node: Node, outcome: StepOutcome): void {
  const stack: Array<[Node, StepOutcome]> = [[node, outcome]];
  while (stack.length > 0) {
    const [n, o] = stack.pop()!;
    if (n.outcome) continue;
    n.outcome = o;
    settledFor(s.people, n.person);
    s.counts[o.outcome] += 1;
    s.settled += 1;
    if (o.cause === "stopped") s.notStarted += 1;
    s.onSettled(o);
    for (const d of n.dependents) {
      const dep = s.nodes[d]!;
      if (dep.outcome) continue;
      if (o.outcome === "succeeded") {
        dep.waiting -= 1;
        if (dep.waiting === 0) makeReady(s, dep);
        continue;
      }
      const preset = s.presets.get(dep);
      if (preset) {
        stack.push([dep, preset]);
        continue;
      }
      const root = rootOf(o, s.roots);
      s.roots.set(dep.step.id, root);
      stack.push([dep, skippedBecause(dep.step, o, root)]);
    }
  }
}

function buildGraph(steps: readonly Step[]): Node[] {
  const byId = new Map<string, number>();
  const nodes: Node[] = steps.map((step, index) => {
    if (byId.has(step.id)) throw new InternalError({ message: `plan has two steps with id ${step.id}` });
    byId.set(step.id, index);
    return { step, index, person: NOBODY, waiting: 0, dependents: [] };
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
