/**
 * Every manifest in deploy/kubernetes validated against the Kubernetes OpenAPI schemas shipped by
 * the `kubernetes-models` package (types, enums, required fields, e.g. podFailurePolicy rules),
 * and every config in the ConfigMap loaded by the config loader, as `usersync validate` does.
 */
import { mkdtemp, readFile, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { ConfigMap, PersistentVolumeClaim, Secret, ServiceAccount } from "kubernetes-models/v1";
import { CronJob, Job } from "kubernetes-models/batch/v1";
import { Role, RoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1";
import { loadConfig } from "../../src/config/index.js";
import { ROOT } from "../e2e/run-cli.js";

const DIR = join(ROOT, "deploy", "kubernetes");

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

async function documents(): Promise<{ file: string; obj: Record<string, unknown> }[]> {
  const out = [];
  for (const file of (await readdir(DIR)).filter((f) => f.endsWith(".yaml")).sort())
    for (const doc of parseAllDocuments(await readFile(join(DIR, file), "utf8")))
      out.push({ file, obj: doc.toJS() as Record<string, unknown> });
  return out;
}

describe("deploy/kubernetes against the Kubernetes schemas", () => {
  it("every manifest is a known kind and validates", async () => {
    const docs = await documents();
    expect(docs.length).toBeGreaterThanOrEqual(9);
    for (const { file, obj } of docs) {
      const key = `${String(obj["apiVersion"])}/${String(obj["kind"])}`;
      const Model = MODELS[key];
      expect(Model, `${file}: ${key} has a schema`).toBeDefined();
      expect(() => new Model!(obj).validate(), `${file}: ${key}`).not.toThrow();
    }
  });

  it("the schema check catches a broken podFailurePolicy (it is not a no-op)", async () => {
    const job = (await documents()).find((d) => d.obj["kind"] === "Job")!.obj;
    const broken = structuredClone(job) as { spec: { podFailurePolicy: { rules: { action: string }[] } } };
    broken.spec.podFailurePolicy.rules[0]!.action = "Fail";
    expect(() => new MODELS["batch/v1/Job"]!(broken).validate()).toThrow(/action/);
  });

  it("every config in the ConfigMap loads", async () => {
    const cm = (await documents()).find((d) => d.obj["kind"] === "ConfigMap")!.obj;
    const data = cm["data"] as Record<string, string>;
    const configs = Object.keys(data).filter((k) => /config\.yaml$|^usersync\.yaml$/.test(k));
    expect(configs.sort()).toEqual(["onboarding-config.yaml", "usersync.yaml"]);
    const dir = await mkdtemp(join(tmpdir(), "usersync-cm-"));
    // The mounted token Secret of the pod, stood in for by a file here.
    await writeFile(join(dir, "token"), "test-token");
    const env = { USERSYNC_TARGET_TOKEN_FILE: join(dir, "token") };
    for (const key of configs) {
      await writeFile(join(dir, key), data[key]!);
      const config = await loadConfig({ file: join(dir, key), env, cwd: dir });
      expect(config.target.baseUrl, key).toBe("https://analytics.example.com");
    }
    const onboarding = await loadConfig({ file: join(dir, "onboarding-config.yaml"), env, cwd: dir });
    expect(onboarding.identity.passwords).toBe("generate");
    expect(onboarding.output.credentialsSecretPrefix).toBe("usersync-password");
    expect(onboarding.policy.mode).toBe("incremental");
  });
});
