/** The scheduler's operations without HTTP: which step may start, and what follows a settle. */
import { describe, expect, it } from "vitest";
import { notRun } from "../../src/apply/outcomes.js";
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
} from "../../src/apply/scheduler.js";
import type { StepOutcome } from "../../src/apply/types.js";
import type { Step } from "../../src/plan/types.js";
import { groupStep } from "./builders.js";

function aSchedule(steps: Step[], extra: { concurrency?: number; circuitBreaker?: number } = {}) {
  const settled: StepOutcome[] = [];
  const s = createSchedule({
    steps,
    concurrency: extra.concurrency ?? 10,
    circuitBreaker: extra.circuitBreaker ?? 20,
    preset: () => undefined,
    onSettled: (o) => settled.push(o),
  });
  return { s, settled };
}

function startAll(s: Schedule): Node[] {
  const started: Node[] = [];
  for (let n = nextReady(s); n; n = nextReady(s)) {
    start(s);
    started.push(n);
  }
  return started;
}

const ok = (n: Node): StepOutcome => notRun(n.step, "succeeded", "ok");
const failed = (n: Node, status = 500): StepOutcome => ({
  ...notRun(n.step, "failed", "x"),
  error: { message: "boom", status },
});

describe("scheduler", () => {
  it("starts a step only when its dependencies succeeded, within concurrency", () => {
    const { s } = aSchedule([groupStep("a"), groupStep("b"), groupStep("c", ["a"])], { concurrency: 1 });
    const first = startAll(s);
    expect(first.map((n) => n.step.id)).toEqual(["createGroup:a"]);
    settle(s, first[0]!, ok(first[0]!));
    expect(startAll(s).map((n) => n.step.id)).toEqual(["createGroup:b"]);
    expect(progressOf(s, 0)).toMatchObject({ total: 3, done: 1, running: 1 });
  });

  it("skips the dependents of a failed step, naming the root cause", () => {
    const { s, settled } = aSchedule([groupStep("a"), groupStep("b", ["a"]), groupStep("c", ["b"])]);
    const [a] = startAll(s);
    settle(s, a!, failed(a!));
    expect(settled.map((o) => [o.stepId, o.outcome, o.cause])).toEqual([
      ["createGroup:a", "failed", undefined],
      ["createGroup:b", "skipped", "failed"],
      ["createGroup:c", "skipped", "failed"],
    ]);
    expect(settled[2]!.reason).toContain("root cause: createGroup:a failed");
    expect(s.running).toBe(0);
  });

  it("stops on the circuit breaker, but not for 429s; the first stop wins", () => {
    const { s } = aSchedule([groupStep("a"), groupStep("b"), groupStep("c"), groupStep("d")], {
      circuitBreaker: 2,
    });
    const [a, b, c] = startAll(s);
    settle(s, a!, failed(a!, 429));
    settle(s, b!, failed(b!));
    expect(s.stop).toBeUndefined();
    settle(s, c!, failed(c!));
    expect(s.stop?.by).toBe("circuitBreaker");
    stop(s, { by: "interrupted", reason: "later" });
    expect(s.stop?.by).toBe("circuitBreaker");
    expect(nextReady(s)).toBeUndefined();
  });

  it("settles what never started as stopped, not counted as done", () => {
    const { s } = aSchedule([groupStep("a"), groupStep("b", ["a"])]);
    stop(s, { by: "interrupted", reason: "interrupted" });
    settleUnstarted(s);
    expect(s.nodes.map((n) => n.outcome?.cause)).toEqual(["stopped", "stopped"]);
    expect(progressOf(s, 0)).toMatchObject({ done: 0, notStarted: 2 });
  });
});
