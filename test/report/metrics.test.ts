/** The metrics text of a run: what the alerts of deploy/kubernetes/overlays/alerts read. */
import { describe, expect, it } from "vitest";
import { renderMetrics, type MetricsInput } from "../../src/report/metrics.js";
import { parseExposition } from "../helpers/fake-pushgateway.js";
import { samplePlan } from "./sample-plan.js";

const RUN: MetricsInput = {
  command: "apply",
  exitCode: 0,
  durationSeconds: 1.5,
  requests: 7,
  retries: 0,
  now: 1_800_000_000,
};

function sample(text: string, name: string): number | undefined {
  return parseExposition(text).find((s) => s.name === name)?.value;
}

describe("usersync_deletions_held_back", () => {
  it("counts the people whose deletion the guard held back", () => {
    // samplePlan wants one deletion (old@example.com); a limit of 0 holds it back.
    const held = samplePlan({ maxDeletes: 0 });
    expect(held.deleteGuard).toMatchObject({ wanted: 1, limit: 0 });
    const text = renderMetrics({ ...RUN, exitCode: 3, plan: held });
    expect(parseExposition(text)).toContainEqual({
      name: "usersync_deletions_held_back",
      labels: { command: "apply" },
      value: 1,
    });
  });

  it("is 0 when the deletions were within the limit, and when the run never planned", () => {
    const allowed = samplePlan({ maxDeletes: 5 });
    expect(allowed.deleteGuard.wanted).toBe(1);
    expect(sample(renderMetrics({ ...RUN, plan: allowed }), "usersync_deletions_held_back")).toBe(0);
    // A run stopped before its plan (exit 4) still says so: a Pushgateway keeps the last value
    // pushed, so leaving the metric out would keep an earlier run's held-back count alive.
    expect(sample(renderMetrics({ ...RUN, exitCode: 4 }), "usersync_deletions_held_back")).toBe(0);
  });
});
