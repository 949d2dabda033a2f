import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyPlan } from "../../src/apply/index.js";
import { openJournal } from "../../src/outputs/index.js";
import { aPlan, groupStep, noPasswords } from "../apply/builders.js";
import { createFakeClient } from "../apply/fake-client.js";
import type { StepOutcome } from "../../src/apply/index.js";
import { skipWithout } from "../helpers/skips.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-journal-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const outcome = (i: number): StepOutcome => ({
  stepId: `createGroup:g${i}`,
  kind: "createGroup",
  target: `g${i}`,
  outcome: "succeeded",
  attempts: 1,
  durationMs: 3,
});

describe("openJournal", () => {
  it.skipIf(skipWithout(["devFull"], { what: "the journal on a full disk" }))(
    "on a full disk: says so once, writes nothing more, and close() rejects instead of hanging",
    async () => {
      const failures: unknown[] = [];
      const journal = await openJournal("/dev/full", { onFailure: (err) => failures.push(err) });
      for (let i = 0; i < 5; i++) journal.record(outcome(i));
      await expect(journal.flush()).rejects.toThrow(/ENOSPC/);
      for (let i = 5; i < 10; i++) journal.record(outcome(i));
      await expect(journal.close()).rejects.toThrow(/ENOSPC/);
      expect(failures).toHaveLength(1);
    },
  );

  it("appends one JSON line per step, in order, after what was there", async () => {
    const file = join(dir, "run.jsonl");
    await writeFile(file, '{"earlier":true}\n');
    const journal = await openJournal(file, { now: () => new Date("2026-01-01T00:00:00.000Z") });
    journal.record(outcome(1));
    journal.record({
      ...outcome(2),
      outcome: "failed",
      error: { message: "POST /x answered 500", status: 500 },
    });
    await journal.flush();
    const lines = (await readFile(file, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      { earlier: true },
      {
        time: "2026-01-01T00:00:00.000Z",
        stepId: "createGroup:g1",
        kind: "createGroup",
        target: "g1",
        outcome: "succeeded",
        attempts: 1,
        durationMs: 3,
      },
      {
        time: "2026-01-01T00:00:00.000Z",
        stepId: "createGroup:g2",
        kind: "createGroup",
        target: "g2",
        outcome: "failed",
        attempts: 1,
        durationMs: 3,
        error: { message: "POST /x answered 500", status: 500 },
      },
    ]);
    await journal.close();
  });

  it("writes 5,000 lines with group commit (prints the figures)", async () => {
    const file = join(dir, "big.jsonl");
    const journal = await openJournal(file);
    const t0 = performance.now();
    // Steps finish a few at a time, as they do in a run.
    for (let i = 0; i < 5000; i++) {
      journal.record(outcome(i));
      if (i % 8 === 7) await new Promise((r) => setImmediate(r));
    }
    await journal.close();
    const { lines, syncs } = journal.stats();
    console.log(`journal: 5000 lines, ${syncs} datasyncs, ${Math.round(performance.now() - t0)} ms`);
    expect(lines).toBe(5000);
    expect(syncs).toBeLessThanOrEqual(5000);
    expect((await readFile(file, "utf8")).trim().split("\n")).toHaveLength(5000);
  });

  it("holds a finished step's line on disk while other steps are still running", async () => {
    const file = join(dir, "run.jsonl");
    const journal = await openJournal(file);
    const client = createFakeClient();
    let release!: () => void;
    client.gates.set("createGroup:slow", new Promise<void>((r) => (release = r)));
    const run = applyPlan({
      plan: aPlan([groupStep("slow"), groupStep("fast")]),
      client,
      concurrency: 2,
      passwords: noPasswords,
      journal,
    });
    // Poll the file (bounded) while "slow" is held open.
    let seen = "";
    for (let i = 0; i < 200 && !seen.includes("createGroup:fast"); i++) {
      await new Promise((r) => setTimeout(r, 10));
      seen = await readFile(file, "utf8");
    }
    release();
    await run;
    await journal.close();
    expect(
      seen
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { stepId: string }).stepId),
    ).toEqual(["createGroup:fast"]);
    expect((await readFile(file, "utf8")).trim().split("\n")).toHaveLength(2);
  });
});
