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
import type { CreateMappingStep, Step } from "../../src/plan/types.js";
import { groupStep, newUserSteps } from "./builders.js";

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

  describe("whole people first", () => {
    /** A seeded order of settling, so a failure can be replayed. */
    function lcg(seed: number): () => number {
      let x = seed;
      return () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    }
    const users = (n: number): Step[] =>
      Array.from({ length: n }, (_, i) => newUserSteps(`u${i}@example.com`, `u${i}`)).flat();
    /** People with some but not all of their steps succeeded: what an interrupt would leave. */
    function halfDone(s: Schedule): number {
      const done = new Map<number, boolean[]>();
      for (const n of s.nodes)
        done.set(n.person, [...(done.get(n.person) ?? []), n.outcome?.outcome === "succeeded"]);
      return [...done.values()].filter((d) => d.some(Boolean) && !d.every(Boolean)).length;
    }

    for (const concurrency of [1, 4, 16])
      it(`keeps at most ${concurrency} people half-done at any moment, settling in a random order`, () => {
        // Plan order puts every credentials creation before every mapping creation.
        const { s } = aSchedule(
          [...users(200)].sort((a, b) => a.kind.localeCompare(b.kind)),
          { concurrency },
        );
        const random = lcg(concurrency);
        const running = startAll(s);
        let most = 0;
        while (running.length > 0) {
          const [node] = running.splice(Math.floor(random() * running.length), 1);
          settle(s, node!, ok(node!));
          most = Math.max(most, halfDone(s));
          running.push(...startAll(s));
          expect(running.length).toBeLessThanOrEqual(concurrency);
        }
        expect(s.counts.succeeded).toBe(400);
        expect(most).toBeLessThanOrEqual(concurrency);
        // Slots were kept busy: a step was running at the concurrency limit most of the time.
        expect(progressOf(s, 0).done).toBe(400);
      });

    it("starts the mapping of a person whose login was created before the next person's login", () => {
      const { s } = aSchedule(users(3), { concurrency: 1 });
      const order: string[] = [];
      for (let [n] = startAll(s); n; [n] = startAll(s)) {
        order.push(n.step.id);
        settle(s, n, ok(n));
      }
      expect(order).toEqual([
        "createCredentials:u0@example.com",
        "createMapping:u0",
        "createCredentials:u1@example.com",
        "createMapping:u1",
        "createCredentials:u2@example.com",
        "createMapping:u2",
      ]);
    });

    it("opens another person when every open one waits for someone else (never a standstill)", () => {
      const [credA, mapA] = newUserSteps("a@example.com", "a");
      const [credB, mapB] = newUserSteps("b@example.com", "b");
      // Contrived: a's user waits for b's user, and only one step may run at a time.
      const { s } = aSchedule([credA, credB, { ...mapA, dependsOn: [credA.id, mapB.id] }, mapB], {
        concurrency: 1,
      });
      const order: string[] = [];
      for (let [n] = startAll(s); n; [n] = startAll(s)) {
        order.push(n.step.id);
        settle(s, n, ok(n));
      }
      expect(order).toEqual([credA.id, credB.id, mapB.id, mapA.id]);
    });

    it("a person a killed run left half-created (one step left) is made whole before anyone new", () => {
      const [, leftover] = newUserSteps("left@example.com", "left");
      const repair: Step = {
        ...(leftover as CreateMappingStep),
        dependsOn: [],
        after: { id: "left", authenticationId: "auth-left", groups: [] },
      };
      const { s } = aSchedule([...users(2), repair], { concurrency: 1 });
      const [first] = startAll(s);
      expect(first?.step.id).toBe("createMapping:left");
    });

    it("a step of nobody (a group) starts before any new person, wherever the plan puts it", () => {
      const { s } = aSchedule([...users(2), groupStep("g")], { concurrency: 1 });
      const order: string[] = [];
      for (let [n] = startAll(s); n; [n] = startAll(s)) {
        order.push(n.step.id);
        settle(s, n, ok(n));
      }
      expect(order.slice(0, 2)).toEqual(["createGroup:g", "createCredentials:u0@example.com"]);
    });
  });
});
