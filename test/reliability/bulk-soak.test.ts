/**
 * Bulk membership under fire: a reorganisation of 1,000 people across 20 groups against an
 * emulator whose userManagement paths answer 10% 500, 10% 503, 5% 429, drop 5% of connections
 * and lose 30% of the answers to writes (the change lands, the answer never comes), with only two
 * retries, so lost answers are settled by reading the group back and some steps fail outright.
 * Five seeds; each converges within three runs (the fourth plan is empty at the latest), with no
 * membership lost or duplicated.
 */
import { pino } from "pino";
import { expect, it } from "vitest";
import type { ApplyResult } from "../../src/apply/index.js";
import type { EmulatorHandle, EmulatorSeed } from "../../src/emulator/types.js";
import { plan } from "../../src/plan/index.js";
import { listActualState } from "../../src/service/index.js";
import { aDesiredUser, aPolicy, desiredOf, planAndApply } from "../apply/scenario.js";
import { withEmulatorClient } from "../helpers/env.js";

const PEOPLE = 1000;
const GROUPS = Array.from({ length: 20 }, (_, i) => `g${String(i).padStart(2, "0")}`);
const MAX_RUNS = 3;
const id = (i: number) => `p${String(i).padStart(4, "0")}`;
const before = (i: number) => [GROUPS[i % 20]!];
// Everyone moves; a third also keeps their old group (adds without removes).
const after = (i: number) => [...new Set([GROUPS[(i + 3) % 20]!, ...(i % 3 === 0 ? before(i) : [])])].sort();

function seed(): EmulatorSeed {
  const people = Array.from({ length: PEOPLE }, (_, i) => i);
  return {
    groups: GROUPS.map((g) => ({ id: g })),
    mappings: people.map((i) => ({
      id: id(i),
      authenticationId: `sub-${i}`,
      email: `${id(i)}@x.com`,
      groups: before(i),
    })),
  };
}

const desired = desiredOf(
  Array.from({ length: PEOPLE }, (_, i) =>
    aDesiredUser({
      id: id(i),
      email: `${id(i)}@x.com`,
      identity: "external",
      authenticationId: `sub-${i}`,
      groups: after(i),
    }),
  ),
);

function wrong(e: EmulatorHandle): string[] {
  return e
    .state()
    .mappings.filter(
      (m) =>
        new Set(m.groups).size !== m.groups.length || m.groups.join() !== after(Number(m.id.slice(1))).join(),
    )
    .map((m) => `${m.id}: ${m.groups.join(",")}`);
}

it.each([1, 2, 3, 4, 5])("bulk soak, seed %i: converges, nothing lost or duplicated", async (faultSeed) => {
  const env = await withEmulatorClient({
    emulator: {
      seed: seed(),
      faults: {
        error500: 0.1,
        error503: 0.1,
        throttle429: 0.05,
        retryAfterSeconds: 0.1,
        dropConnection: 0.05,
        loseAnswer: 0.3,
        pathPattern: /\/userManagement\//,
        seed: faultSeed,
      },
    },
    client: {
      profile: "v1",
      retries: 2,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 50))),
      random: Math.random,
      logger: pino({ level: "silent" }),
    },
  });
  try {
    // Run until a plan is empty: a failed step may have landed after all (its read-back met a
    // fault too), and then the next plan simply has nothing left for it.
    const runs: ApplyResult[] = [];
    for (let run = 0; run <= MAX_RUNS; run++) {
      const { plan: p, result } = await planAndApply({ client: env.client, desired, policy: aPolicy() });
      if (p.steps.length === 0) break;
      expect(p.steps.every((s) => s.kind === "addMembers" || s.kind === "removeMembers")).toBe(true);
      runs.push(result);
    }
    const recovered = runs.flatMap((r) => r.outcomes.filter((o) => o.recovered === "readBack"));
    console.log(
      `bulk soak seed ${faultSeed}: ${runs.length} run(s), steps ${runs.map((r) => JSON.stringify(r.counts)).join(" then ")}; ${recovered.length} settled by reading the group back; faults ${JSON.stringify(env.emulator.counters().faults)}`,
    );
    expect(runs.length).toBeLessThanOrEqual(MAX_RUNS);
    env.emulator.setFaults({});
    expect(wrong(env.emulator)).toEqual([]);
    const replan = plan({
      desired,
      actual: await listActualState(env.client),
      policy: aPolicy(),
      profile: "v1",
    });
    expect(replan.steps).toEqual([]);
  } finally {
    await env.close();
  }
});
