/**
 * Every overlay of deploy/kubernetes rendered by `kubectl kustomize` (test/helpers/kustomize.ts)
 * and each object validated against the Kubernetes OpenAPI schemas shipped by `kubernetes-models`
 * (types, enums, required fields, e.g. podFailurePolicy rules). Every CronJob's config is loaded
 * by the real config loader with the environment its container gets, from the ConfigMaps the
 * kustomization generated, as `usersync` in the pod reads it; every desired-state sample reads
 * without a problem. The alert rules are checked by promtool (alerts.test.ts).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigMap, PersistentVolumeClaim, Secret, ServiceAccount } from "kubernetes-models/v1";
import { CronJob, Job } from "kubernetes-models/batch/v1";
import { Role, RoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1";
import { loadConfig } from "../../src/config/index.js";
import { readDesiredState } from "../../src/desired/index.js";
import { find, OVERLAYS, podRun, render, type K8sObject } from "../helpers/kustomize.js";
import { skipWithout } from "../helpers/skips.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  "v1/ConfigMap": ConfigMap,
  "v1/PersistentVolumeClaim": PersistentVolumeClaim,
  "v1/Secret": Secret,
  "v1/ServiceAccount": ServiceAccount,
  "batch/v1/CronJob": CronJob,
  "batch/v1/Job": Job,
  "rbac.authorization.k8s.io/v1/Role": Role,
  "rbac.authorization.k8s.io/v1/RoleBinding": RoleBinding,
};

const SETTINGS = {
  USERSYNC_TARGET_BASE_URL: "https://analytics.example.com",
  USERSYNC_OUTPUT_METRICS_PUSH_URL: "http://prometheus-pushgateway.monitoring:9091",
};

// Where kubectl is missing (a laptop) the file is skipped; CI installs it and must not skip.
describe.skipIf(skipWithout(["kubectl"], { what: "the manifests against the schemas", onCi: "run" }))(
  "deploy/kubernetes against the Kubernetes schemas",
  () => {
    const rendered = new Map<string, K8sObject[]>();
    let root: string;
    beforeAll(async () => {
      for (const overlay of OVERLAYS) rendered.set(overlay, render(overlay));
      root = await mkdtemp(join(tmpdir(), "usersync-pod-"));
    }, 180_000);
    afterAll(() => root && rm(root, { recursive: true, force: true }));

    it("every object of every overlay is a known kind and validates", () => {
      for (const [overlay, objects] of rendered) {
        expect(objects.length, overlay).toBeGreaterThan(1);
        for (const obj of objects) {
          const key = `${String(obj["apiVersion"])}/${String(obj["kind"])}`;
          if (key === "monitoring.coreos.com/v1/PrometheusRule") {
            // A custom resource: its shape here, its rules by promtool (alerts.test.ts).
            expect(Object.keys(obj).sort(), overlay).toEqual(["apiVersion", "kind", "metadata", "spec"]);
            expect(Object.keys(obj["spec"]), overlay).toEqual(["groups"]);
            continue;
          }
          const Model = MODELS[key];
          expect(Model, `${overlay}: ${key} has a schema`).toBeDefined();
          expect(() => new Model!(obj).validate(), `${overlay}: ${key}`).not.toThrow();
        }
      }
    });

    it("the schema check catches a broken podFailurePolicy (it is not a no-op)", () => {
      const cronJob = find(rendered.get("hourly-sync")!, "CronJob", "usersync");
      const broken = structuredClone(cronJob);
      broken["spec"]["jobTemplate"]["spec"]["podFailurePolicy"]["rules"][0]["action"] = "Fail";
      expect(() => new CronJob(broken).validate()).toThrow(/action/);
    });

    const configs = [
      { overlay: "hourly-sync", name: "usersync", mode: "full", passwords: "none", pushJob: "usersync" },
      {
        overlay: "daily-audit",
        name: "usersync-audit",
        mode: "full",
        passwords: "none",
        pushJob: "usersync-audit",
      },
      {
        overlay: "onboarding",
        name: "usersync-onboarding",
        mode: "incremental",
        passwords: "generate",
        pushJob: "usersync-onboarding",
      },
    ] as const;

    it.each(configs)("$overlay: the config loads as the pod sees it", async (c) => {
      const objects = rendered.get(c.overlay)!;
      const pod = await podRun(objects, find(objects, "CronJob", c.name), {
        root: join(root, c.overlay),
        token: "test-token",
      });
      const file = pod.args[pod.args.indexOf("--config") + 1]!;
      const config = await loadConfig({ file, env: pod.env, cwd: root });
      expect(config.warnings, c.overlay).toEqual([]);
      expect(config.token).toBe("test-token");
      // From settings/ (environment), not from the config files.
      expect(config.target.baseUrl).toBe(SETTINGS.USERSYNC_TARGET_BASE_URL);
      expect(config.output.metricsPushUrl).toBe(SETTINGS.USERSYNC_OUTPUT_METRICS_PUSH_URL);
      expect(config.output.metricsPushGrouping).toEqual(["namespace=usersync"]);
      expect(config.output.metricsPushJob).toBe(c.pushJob);
      expect(config.logging.format).toBe("json");
      expect(config.policy.mode).toBe(c.mode);
      expect(config.identity.passwords).toBe(c.passwords);
      if (c.passwords === "generate") expect(config.output.credentialsSecretPrefix).toBe("usersync-password");
      // The desired state it names is a mounted sample that reads without a problem.
      const desired = await readDesiredState({ file: config.source.desired! });
      expect(
        desired.problems.filter((p) => p.severity === "error"),
        c.overlay,
      ).toEqual([]);
      expect(desired.state.users.length, c.overlay).toBeGreaterThan(0);
    });
  },
);
