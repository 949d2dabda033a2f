/**
 * The multi-org overlay (issue 31) as rendered: its Indexed Job has one index per target of the
 * config it mounts, the names it passes (TARGET_LIST) are that config's, sorted, each target has
 * its own token Secret, and retries and failures are per index.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { find, findKubectl, jobSpecOf, podSpecOf, render, type K8sObject } from "../helpers/kustomize.js";

describe.skipIf(findKubectl() === undefined)("overlays/multi-org", () => {
  let objects: K8sObject[];
  let job: K8sObject;
  let pod: K8sObject;
  let names: string[];
  beforeAll(() => {
    objects = render("multi-org");
    const cronJob = find(objects, "CronJob", "usersync");
    job = jobSpecOf(cronJob);
    pod = podSpecOf(cronJob);
    const config = parse(find(objects, "ConfigMap", "usersync")["data"]["multi-org.yaml"] as string) as {
      targets: Array<{ name: string }>;
    };
    names = config.targets.map((t) => t.name).sort();
  });

  it("has one index per target, and passes the sorted names it was rendered for", () => {
    expect(job["completionMode"]).toBe("Indexed");
    expect(job["completions"]).toBe(names.length);
    const container = pod["containers"][0] as K8sObject;
    const env = Object.fromEntries((container["env"] as K8sObject[]).map((e) => [e["name"], e["value"]]));
    expect(env["TARGET_LIST"]).toBe(names.join(","));
    expect(container["args"]).toEqual(
      expect.arrayContaining([
        "--target-index",
        "$(JOB_COMPLETION_INDEX)",
        "--target-list",
        "$(TARGET_LIST)",
      ]),
    );
  });

  it("retries and fails per index: no shared backoffLimit, 2 to 4 fail the index at once, disruptions ignored", () => {
    expect(job["backoffLimit"]).toBeUndefined();
    expect(job["backoffLimitPerIndex"]).toBeGreaterThan(0);
    expect(job["maxFailedIndexes"]).toBe(names.length);
    expect(job["parallelism"]).toBeLessThanOrEqual(names.length);
    const rules = job["podFailurePolicy"]["rules"] as K8sObject[];
    expect(rules).toContainEqual({
      action: "FailIndex",
      onExitCodes: { containerName: "usersync", operator: "In", values: [2, 3, 4] },
    });
    expect(rules).toContainEqual({
      action: "Ignore",
      onPodConditions: [{ type: "DisruptionTarget", status: "True" }],
    });
    expect(rules.some((r) => r["action"] === "FailJob")).toBe(false);
  });

  it("mounts each organization's own token Secret where its target reads it", () => {
    const token = (pod["volumes"] as K8sObject[]).find((v) => v["name"] === "token")!;
    expect(token["secret"]).toBeUndefined();
    const sources = (token["projected"]["sources"] as K8sObject[]).map((s) => [
      s["secret"]["name"],
      s["secret"]["items"][0]["path"],
    ]);
    expect(sources).toEqual(names.map((n) => [`usersync-token-${n}`, `${n}/token`]));
  });
});
