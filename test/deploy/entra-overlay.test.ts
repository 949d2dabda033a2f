/**
 * deploy/kubernetes/overlays/entra-hourly-sync, rendered by `kubectl kustomize` (scripts/check-deploy.mjs
 * renders it in CI too): workload identity (the ServiceAccount's client-id annotation and the pod
 * label the webhook looks for), no client secret anywhere, and a config that loads as an Entra source.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";
import { DEPLOY, find, findKubectl, podSpecOf, render } from "../helpers/kustomize.js";

describe.skipIf(!findKubectl() && !process.env["CI"])("overlays/entra-hourly-sync", () => {
  const objects = render({ dir: join(DEPLOY, "overlays", "entra-hourly-sync") });

  it("runs the hourly apply as the usersync ServiceAccount with Azure workload identity", () => {
    const cronJob = find(objects, "CronJob", "usersync");
    expect(cronJob["spec"]["schedule"]).toBe("17 * * * *");
    expect(cronJob["spec"]["jobTemplate"]["spec"]["template"]["metadata"]["labels"]).toMatchObject({
      "azure.workload.identity/use": "true",
    });
    const pod = podSpecOf(cronJob);
    expect(pod["serviceAccountName"]).toBe("usersync");
    expect(pod["volumes"].find((v: { name: string }) => v.name === "config")["configMap"]).toEqual({
      name: "usersync",
    });
    expect(find(objects, "ServiceAccount", "usersync")["metadata"]["annotations"]).toMatchObject({
      "azure.workload.identity/client-id": expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(JSON.stringify(objects)).not.toMatch(/clientSecret|client_secret|ENTRA_CLIENT_SECRET/);
  });

  it("mounts a config that loads as an Entra source with no secret", async () => {
    const text = find(objects, "ConfigMap", "usersync")["data"]["usersync.yaml"] as string;
    const dir = await mkdtemp(join(tmpdir(), "usersync-entra-overlay-"));
    try {
      await writeFile(join(dir, "usersync.yaml"), text);
      await writeFile(join(dir, "token"), "a-token\n");
      const env = { USERSYNC_TARGET_TOKEN_FILE: join(dir, "token") };
      const config = await loadConfig({ file: join(dir, "usersync.yaml"), env, cwd: dir });
      expect(config.source.type).toBe("entra");
      expect(config.source.entra).toMatchObject({ credential: "workloadIdentity", concurrency: 4 });
      expect(config.policy.mode).toBe("full");
      expect(config.state.file).toBe("/var/lib/usersync/state.json");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
