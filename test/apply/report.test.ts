import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { buildApplyReport, createProgressReporter, emptyCounts } from "../../src/apply/index.js";
import { renderApplySummary } from "../../src/report/index.js";
import type { ApplyResult, Progress } from "../../src/apply/index.js";
import { aPlan, groupStep, newUserSteps } from "./builders.js";

const plan = aPlan([groupStep("a"), ...newUserSteps("bad@example.com", "bad")]);
const result: ApplyResult = {
  outcomes: [
    {
      stepId: "createGroup:a",
      kind: "createGroup",
      target: "a",
      outcome: "succeeded",
      attempts: 2,
      durationMs: 12,
    },
    {
      stepId: "createCredentials:bad@example.com",
      kind: "createCredentials",
      target: "bad@example.com",
      outcome: "failed",
      attempts: 1,
      durationMs: 5,
      error: { message: "POST /api/v1/auth/users answered 400: bad email", status: 400, traceId: "t-1" },
    },
    {
      stepId: "createMapping:bad",
      kind: "createMapping",
      target: "bad",
      outcome: "skipped",
      attempts: 0,
      durationMs: 0,
      reason: "dependency createCredentials:bad@example.com failed",
      cause: "failed",
    },
  ],
  counts: { ...emptyCounts(), succeeded: 1, failed: 1, skipped: 1 },
  durationMs: 1534,
  requests: 4,
  retries: 1,
};

describe("buildApplyReport", () => {
  it("lists every step with outcome, attempts, duration and error, and the summary", () => {
    const report = buildApplyReport(result, plan);
    expect(report).toMatchObject({
      formatVersion: 1,
      exitCode: 1,
      summary: { total: 3, counts: result.counts, requests: 4, retries: 1, durationMs: 1534 },
    });
    expect(report.steps[1]).toMatchObject({
      stepId: "createCredentials:bad@example.com",
      outcome: "failed",
      attempts: 1,
      error: { status: 400, traceId: "t-1" },
    });
    expect(report.steps[2]).toMatchObject({
      outcome: "skipped",
      reason: "dependency createCredentials:bad@example.com failed",
      dependsOn: ["createCredentials:bad@example.com"],
    });
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });
});

describe("buildApplyReport people and groups", () => {
  it("counts the people and groups whose every step succeeded, as the text summary does", () => {
    const report = buildApplyReport(result, plan);
    expect(report.summary.people).toEqual({ added: 0, changed: 0, revoked: 0, removed: 0 });
    expect(report.summary.groups).toEqual({ added: 1, changed: 0, removed: 0 });
  });
});

describe("renderApplySummary of a stopped run", () => {
  it("says the counts once, in the headline, not started among them", () => {
    const stopped: ApplyResult = {
      ...result,
      outcomes: [
        result.outcomes[0]!,
        {
          ...result.outcomes[2]!,
          stepId: "createCredentials:bad@example.com",
          reason: "not started: the run stopped: interrupted",
          cause: "stopped",
        },
        { ...result.outcomes[2]!, reason: "not started: the run stopped: interrupted", cause: "stopped" },
      ],
      counts: { ...emptyCounts(), succeeded: 1, skipped: 2 },
      stoppedBy: "interrupted",
      stopReason: "interrupted by a signal: no new steps were started; run again to finish, it converges",
    };
    const text = renderApplySummary(stopped, { color: false });
    expect(text.split("\n").slice(0, 3)).toEqual([
      "Apply stopped: 1 succeeded, 2 not started (of 3 steps)",
      "Requests: 4 sent, 1 retried; duration 1.5 s",
      "Stopped: interrupted by a signal: no new steps were started; run again to finish, it converges",
    ]);
    expect(text.match(/not started/g)).toHaveLength(1);
  });
});

describe("renderApplySummary", () => {
  it("gives counts, requests, retries, duration and every step that did not succeed", () => {
    const text = renderApplySummary(result, { color: false });
    expect(text).toBe(
      [
        "Apply finished: 1 succeeded, 1 failed, 1 skipped (of 3 steps)",
        "Requests: 4 sent, 1 retried; duration 1.5 s",
        "Failures by cause (1):",
        "  1 × POST /api/v1/auth/users answered 400: bad email (e.g. create login bad@example.com)",
        "",
        "failed (1):",
        "  create login bad@example.com: POST /api/v1/auth/users answered 400: bad email",
        "",
        "skipped (1):",
        "  create user bad: dependency create login bad@example.com failed",
        "",
      ].join("\n"),
    );
    expect(text).not.toContain("\x1b[");
    expect(renderApplySummary(result, { color: true })).toContain("\x1b[31m");
  });

  it("says in people and groups what was done: only those whose every step succeeded", () => {
    // The login of bad@example.com failed and its user was skipped: nobody was added.
    const partly = renderApplySummary(result, { color: false, plan }).split("\n");
    expect(partly.slice(0, 2)).toEqual([
      "Apply finished: 1 succeeded, 1 failed, 1 skipped (of 3 steps)",
      "Done: 1 group (1 added)",
    ]);
    const good = aPlan([groupStep("a"), ...newUserSteps("ada@example.com", "ada", ["a"])]);
    const all: ApplyResult = {
      ...result,
      outcomes: good.steps.map((s) => ({
        stepId: s.id,
        kind: s.kind,
        target: s.target,
        outcome: "succeeded" as const,
        attempts: 1,
        durationMs: 1,
      })),
      counts: { ...emptyCounts(), succeeded: 3 },
    };
    expect(renderApplySummary(all, { color: false, plan: good }).split("\n")[1]).toBe(
      "Done: 1 person (1 added) and 1 group (1 added)",
    );
    // A user whose id is also a group's: the group's failure does not take the person with it.
    const same = aPlan([groupStep("sales"), ...newUserSteps("sales@example.com", "sales")]);
    const groupFailed: ApplyResult = {
      ...all,
      outcomes: same.steps.map((s) => ({
        stepId: s.id,
        kind: s.kind,
        target: s.target,
        outcome: s.kind === "createGroup" ? ("failed" as const) : ("succeeded" as const),
        attempts: 1,
        durationMs: 1,
      })),
    };
    expect(renderApplySummary(groupFailed, { color: false, plan: same }).split("\n")[1]).toBe(
      "Done: 1 person (1 added)",
    );
    const none: ApplyResult = { ...result, outcomes: [], counts: emptyCounts() };
    expect(renderApplySummary(none, { color: false, plan: good })).not.toContain("Done:");
  });

  it("lists at most maxListed steps per outcome and points at the report for the rest", () => {
    const many: ApplyResult = {
      ...result,
      outcomes: Array.from({ length: 5 }, (_, i) => ({ ...result.outcomes[2]!, stepId: `s${i}` })),
      counts: { ...emptyCounts(), skipped: 5 },
    };
    const lines = renderApplySummary(many, { color: false, maxListed: 2 }).trimEnd().split("\n");
    // One reason for all five: said once, then the steps listed.
    expect(lines.slice(-5)).toEqual([
      "skipped (5):",
      "  5 steps: dependency create login bad@example.com failed",
      "    s0",
      "    s1",
      "  ... and 3 more skipped steps: see the apply report (--report FILE)",
    ]);
  });
});

describe("createProgressReporter", () => {
  const p = (done: number): Progress => ({
    total: 10,
    done,
    running: 1,
    counts: { ...emptyCounts(), succeeded: done },
  });

  it("redraws one line in place on a TTY, at most every 100 ms, and ends it on done", () => {
    let out = "";
    let t = 0;
    const r = createProgressReporter({
      stream: { write: (s: string) => (out += s) },
      isTTY: true,
      total: 10,
      now: () => t,
    });
    r.update(p(1));
    t = 50;
    r.update(p(2)); // throttled
    t = 150;
    r.update(p(3));
    r.done();
    expect(
      out
        .split("\r")
        .filter(Boolean)
        .map((s) => s.trimEnd()),
    ).toEqual([
      "[###---------------------------] 1/10 steps, 1 running",
      "[#########---------------------] 3/10 steps, 1 running",
      "[#########---------------------] 3/10 steps, 1 running",
    ]);
    expect(out.endsWith("\n")).toBe(true);
    expect(out.slice(0, -1)).not.toContain("\n");
  });

  it("counts with thousands separators, and leaves a stop's not-started steps to the summary", () => {
    let out = "";
    const r = createProgressReporter({
      stream: { write: (s: string) => (out += s) },
      isTTY: true,
      total: 4000,
    });
    const counts = { ...emptyCounts(), succeeded: 1927, skipped: 2073 };
    r.update({ total: 4000, done: 1927, running: 0, counts, notStarted: 2073 });
    r.done();
    expect(out.split("\r").filter(Boolean).at(-1)!.trimEnd()).toBe(
      "[##############----------------] 1,927/4,000 steps, 0 running",
    );
  });

  it("sends progress to the logger when one is given and the stream is not a TTY", () => {
    const events: unknown[] = [];
    const logger = pino({ level: "info" }, { write: (s: string) => void events.push(JSON.parse(s)) });
    const r = createProgressReporter({
      stream: { write: () => expect.fail("no plain line with a logger") },
      isTTY: false,
      total: 10,
      logger,
      now: () => 0,
    });
    r.update(p(4));
    r.done();
    expect(events).toMatchObject([{ msg: "apply progress", done: 4, total: 10, succeeded: 4 }]);
  });

  it("writes a plain line every interval when not a TTY, and the final state on done", () => {
    const lines: string[] = [];
    let t = 0;
    const r = createProgressReporter({
      stream: { write: (s: string) => lines.push(s) },
      isTTY: false,
      total: 10,
      intervalMs: 5000,
      now: () => t,
    });
    r.update(p(1));
    t = 1000;
    r.update(p(2));
    t = 6000;
    r.update(p(5));
    t = 7000;
    r.update(p(10));
    r.done();
    expect(lines).toEqual([
      "progress: 1/10 steps (10%), 1 running, 1 succeeded, 0 failed, 0 skipped, 0 retried, 0 s elapsed\n",
      "progress: 5/10 steps (50%), 1 running, 5 succeeded, 0 failed, 0 skipped, 0 retried, 6 s elapsed\n",
      "progress: 10/10 steps (100%), 1 running, 10 succeeded, 0 failed, 0 skipped, 0 retried, 7 s elapsed\n",
    ]);
  });
});
