/**
 * deploy/kubernetes/overlays/okta-hourly-sync, rendered by `kubectl kustomize` (scripts/check-deploy.mjs
 * renders it in CI): its config loads, the Okta private key comes from a mounted Secret and
 * nowhere else, and the CronJob keeps what every usersync job shares.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";
import { find, findKubectl, jobSpecOf, podSpecOf, render } from "../helpers/kustomize.js";
import { DEPLOY } from "../helpers/kustomize.js";

describe.skipIf(!findKubectl() && !process.env["CI"])("overlays/okta-hourly-sync", () => {
  it("renders an hourly sync that reads Okta with a service app whose key is a mounted Secret", async () => {
    const objects = render({ dir: join(DEPLOY, "overlays", "okta-hourly-sync") });
    const cronJob = find(objects, "CronJob", "usersync");
    const pod = podSpecOf(cronJob);
    const container = pod["containers"][0];
    expect(cronJob["spec"]["schedule"]).toBe("17 * * * *");
    expect(jobSpecOf(cronJob)["podFailurePolicy"]["rules"][1]).toMatchObject({ action: "Count" });
    expect(pod["volumes"]).toContainEqual({
      name: "okta-key",
      secret: { secretName: "usersync-okta-key", defaultMode: 0o400 },
    });
    expect(container["volumeMounts"]).toContainEqual({
      name: "okta-key",
      mountPath: "/var/run/secrets/okta",
      readOnly: true,
    });
    expect(JSON.stringify([container["env"], container["args"]])).not.toMatch(/PRIVATE_KEY|API_TOKEN/i);

    const dir = await mkdtemp(join(tmpdir(), "okta-overlay-"));
    const file = join(dir, "usersync.yaml");
    await writeFile(file, find(objects, "ConfigMap", "usersync")["data"]["usersync.yaml"]);
    await writeFile(join(dir, "token"), "a-token\n");
    const config = await loadConfig({
      file,
      env: { USERSYNC_TARGET_TOKEN_FILE: join(dir, "token") },
      cwd: dir,
    });
    expect(config.source.type).toBe("okta");
    expect(config.source.okta).toMatchObject({
      headroom: "50%",
      credentials: { privateKeyFile: "/var/run/secrets/okta/private-key.pem" },
    });
    expect(config.policy.mode).toBe("full");
  });
});
