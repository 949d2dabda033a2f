/** The Kubernetes manifests and the Dockerfile: parsed, and checked for what a safe deployment needs. */
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { ROOT } from "../e2e/run-cli.js";

const DIR = join(ROOT, "deploy", "kubernetes");

type Obj = Record<string, unknown>;
const get = (o: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Obj)[k] : undefined), o);

async function manifests(): Promise<Map<string, Obj>> {
  const out = new Map<string, Obj>();
  for (const file of (await readdir(DIR)).filter((f) => f.endsWith(".yaml"))) {
    for (const doc of parseAllDocuments(await readFile(join(DIR, file), "utf8"))) {
      expect(doc.errors, file).toEqual([]);
      const obj = doc.toJS() as Obj;
      out.set(`${String(obj["kind"])}/${String(get(obj, "metadata.name"))}`, obj);
    }
  }
  return out;
}

function podSpec(obj: Obj): Obj {
  return (
    obj["kind"] === "CronJob"
      ? get(obj, "spec.jobTemplate.spec.template.spec")
      : get(obj, "spec.template.spec")
  ) as Obj;
}

function jobSpec(obj: Obj): Obj {
  return (obj["kind"] === "CronJob" ? get(obj, "spec.jobTemplate.spec") : get(obj, "spec")) as Obj;
}

describe("deploy/kubernetes", () => {
  it("has the sync CronJob, the audit CronJob, the onboarding Job, a ConfigMap and a Secret example", async () => {
    const m = await manifests();
    expect([...m.keys()].sort()).toEqual([
      "ConfigMap/usersync",
      "CronJob/usersync",
      "CronJob/usersync-audit",
      "Job/usersync-onboarding",
      "PersistentVolumeClaim/usersync-state",
      "Role/usersync-passwords",
      "RoleBinding/usersync-passwords",
      "Secret/usersync-token",
      "ServiceAccount/usersync",
    ]);
  });

  it("every job is bounded, non-root, read-only, resource-limited, and reads the token from a mounted Secret", async () => {
    const m = await manifests();
    for (const key of ["CronJob/usersync", "CronJob/usersync-audit", "Job/usersync-onboarding"]) {
      const obj = m.get(key)!;
      if (obj["kind"] === "CronJob") expect(get(obj, "spec.concurrencyPolicy"), key).toBe("Forbid");
      expect(get(jobSpec(obj), "activeDeadlineSeconds"), key).toBeGreaterThan(0);
      expect(get(jobSpec(obj), "backoffLimit"), key).toBeTypeOf("number");
      const pod = podSpec(obj);
      expect(get(pod, "securityContext.runAsNonRoot"), key).toBe(true);
      const container = (pod["containers"] as Obj[])[0]!;
      expect(get(container, "securityContext.readOnlyRootFilesystem"), key).toBe(true);
      expect(get(container, "securityContext.allowPrivilegeEscalation"), key).toBe(false);
      expect(get(container, "resources.limits.memory"), key).toBeDefined();
      expect(get(container, "resources.limits.cpu"), key).toBeDefined();
      const volumes = pod["volumes"] as Obj[];
      expect(
        volumes.find((v) => get(v, "secret.secretName") === "usersync-token"),
        key,
      ).toBeDefined();
      expect(
        volumes.find((v) => get(v, "configMap.name") === "usersync"),
        key,
      ).toBeDefined();
      // The token never travels as an environment variable or an argument in the manifest.
      expect(JSON.stringify(container["env"] ?? [])).not.toMatch(/TOKEN/);
    }
    const config = (get(m.get("ConfigMap/usersync"), "data") as Obj)["usersync.yaml"] as string;
    expect(config).toContain("tokenFile: /var/run/secrets/usersync/token");
  });

  it("the audit runs a markdown dry run with a detailed exit code; the onboarding Job is incremental", async () => {
    const m = await manifests();
    const auditArgs = (podSpec(m.get("CronJob/usersync-audit")!)["containers"] as Obj[])[0]![
      "args"
    ] as string[];
    expect(auditArgs.slice(0, 1)).toEqual(["plan"]);
    expect(auditArgs).toContain("--detailed-exitcode");
    expect(auditArgs.join(" ")).toContain("--format markdown");
    const onboardingArgs = (podSpec(m.get("Job/usersync-onboarding")!)["containers"] as Obj[])[0]![
      "args"
    ] as string[];
    expect(onboardingArgs.join(" ")).toContain("--config /etc/usersync/onboarding-config.yaml");
    expect(onboardingArgs).toContain("--yes");
    expect(auditArgs).toContain("--log-report");
  });

  it("deterministic exits fail a Job at once, finished Jobs are cleaned up, state is on the shipped PVC", async () => {
    const m = await manifests();
    for (const key of ["CronJob/usersync", "CronJob/usersync-audit", "Job/usersync-onboarding"]) {
      const obj = m.get(key)!;
      const job = jobSpec(obj);
      expect(get(job, "ttlSecondsAfterFinished"), key).toBeGreaterThan(0);
      const rules = get(job, "podFailurePolicy.rules") as Obj[];
      expect(rules[0], key).toEqual({
        action: "FailJob",
        onExitCodes: { containerName: "usersync", operator: "In", values: [2, 3, 4] },
      });
      // podFailurePolicy is only accepted with restartPolicy: Never.
      expect(get(podSpec(obj), "restartPolicy"), key).toBe("Never");
      const state = (podSpec(obj)["volumes"] as Obj[]).find((v) => v["name"] === "state");
      expect(get(state, "persistentVolumeClaim.claimName"), key).toBe("usersync-state");
      expect(get(podSpec(obj), "serviceAccountName"), key).toBe("usersync");
      const env = ((podSpec(obj)["containers"] as Obj[])[0]!["env"] ?? []) as Obj[];
      expect(env, key).toContainEqual({ name: "USERSYNC_LOGGING_FORMAT", value: "json" });
      expect(get(podSpec(obj), "automountServiceAccountToken"), key).toBe(key.startsWith("Job/"));
    }
    const rules = get(m.get("Role/usersync-passwords"), "rules") as Obj[];
    expect(rules).toEqual([
      { apiGroups: [""], resources: ["secrets"], verbs: ["create", "get", "list", "update"] },
    ]);
    expect(get(m.get("RoleBinding/usersync-passwords"), "subjects")).toEqual([
      { kind: "ServiceAccount", name: "usersync", namespace: "usersync" },
    ]);
  });

  it("the Dockerfile pins its base by digest, runs under tini, ships no npm and runs as non-root", async () => {
    const dockerfile = await readFile(join(ROOT, "Dockerfile"), "utf8");
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(3);
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:20-bookworm-slim@sha256:[0-9a-f]{64}$/m);
    expect(dockerfile).toContain("--omit=dev");
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toContain('ENTRYPOINT ["/usr/bin/tini", "--", "usersync"]');
    // The runtime stage (after the last FROM) removes npm and never runs it.
    const runtime = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    expect(runtime).toContain("rm -rf /usr/local/lib/node_modules/npm");
    expect(runtime).not.toMatch(/^RUN npm/m);
    expect(runtime).toContain("install -y --no-install-recommends tini");
  });
});
