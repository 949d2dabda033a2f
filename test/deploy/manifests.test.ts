/**
 * The Kubernetes manifests (deploy/kubernetes, rendered per overlay by `kubectl kustomize`) and
 * the Dockerfile: checked for what a safe deployment needs, and for the image, the namespace and
 * the service's URL being set in one place (settings/) that reaches every overlay.
 */
import { spawnSync } from "node:child_process";
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { Secret } from "kubernetes-models/v1";
import { ROOT } from "../e2e/run-cli.js";
import {
  DEPLOY,
  OVERLAYS,
  containerEnv,
  find,
  jobSpecOf,
  podSpecOf,
  render,
  type K8sObject,
} from "../helpers/kustomize.js";
import { skipWithout } from "../helpers/skips.js";

const IMAGE = "ghcr.io/example/usersync:0.1.0";
const WORKLOADS = {
  "hourly-sync": "usersync",
  "daily-audit": "usersync-audit",
  onboarding: "usersync-onboarding",
} as const;

async function sources(dir = DEPLOY): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name));
  return out.sort();
}

/** kind/name of each object; the onboarding ConfigMap's name ends in a hash of its content. */
const keys = (objects: K8sObject[]): string[] =>
  objects
    .map((o) => {
      const name = String(o["metadata"]["name"]);
      return `${String(o["kind"])}/${name.replace(/^(usersync-onboarding)-[a-z0-9]{10}$/, "$1-<hash>")}`;
    })
    .sort();

describe.skipIf(skipWithout(["kubectl"], { what: "the manifests", onCi: "run" }))("deploy/kubernetes", () => {
  const rendered = new Map<string, K8sObject[]>();
  beforeAll(() => {
    for (const overlay of OVERLAYS) rendered.set(overlay, render(overlay));
  }, 180_000);

  it("each overlay renders its workload beside the shared volume, identity and config", () => {
    const shared = [
      "ConfigMap/usersync",
      "ConfigMap/usersync-settings",
      "PersistentVolumeClaim/usersync-state",
      "Role/usersync-passwords",
      "RoleBinding/usersync-passwords",
      "ServiceAccount/usersync",
    ];
    expect(keys(rendered.get("hourly-sync")!)).toEqual([...shared, "CronJob/usersync"].sort());
    expect(keys(rendered.get("daily-audit")!)).toEqual([...shared, "CronJob/usersync-audit"].sort());
    // No source: applying a batch leaves the sync's ConfigMap usersync as it is.
    expect(keys(rendered.get("onboarding")!)).toEqual(
      [
        ...shared.filter((k) => k !== "ConfigMap/usersync"),
        "ConfigMap/usersync-onboarding-<hash>",
        "CronJob/usersync-onboarding",
      ].sort(),
    );
    expect(keys(rendered.get("alerts")!)).toEqual(["ConfigMap/usersync-settings", "PrometheusRule/usersync"]);
  });

  it("every job is bounded, non-root, read-only, resource-limited, and reads the token from a mounted Secret", () => {
    for (const [overlay, name] of Object.entries(WORKLOADS)) {
      const cronJob = find(rendered.get(overlay)!, "CronJob", name);
      expect(cronJob["spec"]["concurrencyPolicy"], name).toBe("Forbid");
      expect(cronJob["spec"]["timeZone"], name).toBe("Etc/UTC");
      expect(jobSpecOf(cronJob)["activeDeadlineSeconds"], name).toBeGreaterThan(0);
      expect(jobSpecOf(cronJob)["ttlSecondsAfterFinished"], name).toBeGreaterThan(0);
      const pod = podSpecOf(cronJob);
      expect(pod["securityContext"]["runAsNonRoot"], name).toBe(true);
      const container = pod["containers"][0] as K8sObject;
      expect(container["securityContext"], name).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ["ALL"] },
      });
      expect(container["resources"]["limits"], name).toEqual({ cpu: "1", memory: "1Gi" });
      // Node's heap ceiling below that 1 GiB, with room for Node itself (benchmarks figure 16).
      const nodeOptions = String(containerEnv(rendered.get(overlay)!, cronJob)["NODE_OPTIONS"]);
      expect(Number(/--max-old-space-size=(\d+)/.exec(nodeOptions)?.[1]), name).toBeLessThanOrEqual(768);
      const volumes = pod["volumes"] as K8sObject[];
      expect(volumes.find((v) => v["name"] === "token")?.["secret"], name).toEqual({
        secretName: "usersync-token",
        defaultMode: 0o400,
        // A missing Secret fails the run (and pushes its failure), not the pod's start.
        optional: true,
      });
      expect(volumes.find((v) => v["name"] === "state")?.["persistentVolumeClaim"], name).toEqual({
        claimName: "usersync-state",
      });
      // The token never travels as an environment variable or an argument in the manifest.
      expect(JSON.stringify([container["env"], container["args"]]), name).not.toMatch(/TOKEN/i);
      expect(pod["serviceAccountName"], name).toBe("usersync");
      // Only the onboarding job writes Secrets through the Kubernetes API.
      expect(pod["automountServiceAccountToken"], name).toBe(overlay === "onboarding");
    }
  });

  it("deterministic exits fail a Job at once; 1 and 5 are retried; an evicted pod does not count", () => {
    for (const [overlay, name] of Object.entries(WORKLOADS)) {
      const job = jobSpecOf(find(rendered.get(overlay)!, "CronJob", name));
      expect(job["podFailurePolicy"]["rules"], name).toEqual([
        { action: "FailJob", onExitCodes: { containerName: "usersync", operator: "In", values: [2, 3, 4] } },
        { action: "Count", onExitCodes: { containerName: "usersync", operator: "In", values: [1, 5] } },
        { action: "Ignore", onPodConditions: [{ type: "DisruptionTarget", status: "True" }] },
      ]);
      expect(job["backoffLimit"], name).toBe(2);
      // podFailurePolicy is only accepted with restartPolicy: Never.
      expect(podSpecOf(find(rendered.get(overlay)!, "CronJob", name))["restartPolicy"], name).toBe("Never");
    }
  });

  it("the sync applies every hour, the audit is a daily Markdown dry run, onboarding runs only when a batch is made from it", () => {
    const args = (overlay: keyof typeof WORKLOADS): string[] =>
      podSpecOf(find(rendered.get(overlay)!, "CronJob", WORKLOADS[overlay]))["containers"][0][
        "args"
      ] as string[];
    const schedule = (overlay: keyof typeof WORKLOADS): K8sObject =>
      find(rendered.get(overlay)!, "CronJob", WORKLOADS[overlay])["spec"];
    expect(args("hourly-sync")).toEqual(["apply", "--config", "/etc/usersync/usersync.yaml", "--yes"]);
    expect(schedule("hourly-sync")).toMatchObject({ schedule: "17 * * * *" });
    expect(schedule("hourly-sync")["suspend"]).toBeUndefined();
    expect(args("daily-audit").join(" ")).toBe(
      "plan --config /etc/usersync/usersync.yaml --detailed-exitcode --format markdown --log-report",
    );
    expect(schedule("daily-audit")).toMatchObject({ schedule: "0 6 * * *" });
    expect(args("onboarding")).toEqual([
      "apply",
      "--config",
      "/etc/usersync/onboarding-config.yaml",
      "--yes",
    ]);
    expect(schedule("onboarding")).toMatchObject({ suspend: true });
  });

  it("the Role allows Secrets in its own namespace only, to the usersync service account", () => {
    const objects = rendered.get("onboarding")!;
    expect(find(objects, "Role", "usersync-passwords")["rules"]).toEqual([
      { apiGroups: [""], resources: ["secrets"], verbs: ["create", "get", "list", "update"] },
    ]);
    expect(find(objects, "RoleBinding", "usersync-passwords")["subjects"]).toEqual([
      { kind: "ServiceAccount", name: "usersync", namespace: "usersync" },
    ]);
    expect(find(objects, "ServiceAccount", "usersync")["automountServiceAccountToken"]).toBe(false);
  });

  it("the image and the namespace are written once in the sources, and reach every object", async () => {
    const files = await sources();
    const texts = await Promise.all(
      files.map(async (f) => ({ f: relative(DEPLOY, f), text: await readFile(f, "utf8") })),
    );
    const withImage = texts.filter((t) => t.text.includes("ghcr.io/example/usersync"));
    // Its name in the pods (which an overlay's images: matches) and its tag in settings/.
    expect(withImage.map((t) => t.f).sort()).toEqual([
      "base/pod-defaults.yaml",
      "settings/kustomization.yaml",
    ]);
    const namespaceKeys = texts.flatMap((t) => [...t.text.matchAll(/^\s*namespace:/gm)].map(() => t.f));
    expect(namespaceKeys).toEqual(["settings/kustomization.yaml"]);
    const baseUrls = texts.filter((t) => t.text.includes("analytics.example.com"));
    expect(baseUrls.map((t) => t.f)).toEqual(["settings/kustomization.yaml"]);
    for (const [overlay, objects] of rendered)
      for (const obj of objects)
        expect(obj["metadata"]["namespace"], `${overlay} ${String(obj["kind"])}`).toBe("usersync");
    for (const [overlay, name] of Object.entries(WORKLOADS))
      expect(podSpecOf(find(rendered.get(overlay)!, "CronJob", name))["containers"][0]["image"], name).toBe(
        IMAGE,
      );
  });

  describe("a deployment with its own settings", () => {
    let copy: string;
    beforeAll(async () => {
      copy = await mkdtemp(join(tmpdir(), "usersync-deploy-"));
      await cp(DEPLOY, copy, { recursive: true });
      const file = join(copy, "settings", "kustomization.yaml");
      const text = (await readFile(file, "utf8"))
        .replace("namespace: usersync", "namespace: iam-sync")
        .replace("newName: ghcr.io/example/usersync", "newName: registry.internal/tools/usersync")
        .replace("newTag: 0.1.0", "newTag: 0.2.0")
        .replace("https://analytics.example.com", "https://bi.internal.example");
      await writeFile(file, text);
    });
    afterAll(() => rm(copy, { recursive: true, force: true }));

    it("changes one file and every overlay follows: namespace, RoleBinding subject, image, service URL, metrics grouping", () => {
      for (const [overlay, name] of Object.entries(WORKLOADS)) {
        const objects = render({ dir: join(copy, "overlays", overlay) });
        for (const obj of objects) expect(obj["metadata"]["namespace"], overlay).toBe("iam-sync");
        const cronJob = find(objects, "CronJob", name);
        expect(podSpecOf(cronJob)["containers"][0]["image"]).toBe("registry.internal/tools/usersync:0.2.0");
        const env = containerEnv(objects, cronJob);
        expect(env["USERSYNC_TARGET_BASE_URL"], overlay).toBe("https://bi.internal.example");
        expect(env["USERSYNC_OUTPUT_METRICS_PUSH_GROUPING"], overlay).toBe("namespace=iam-sync");
        expect(find(objects, "RoleBinding", "usersync-passwords")["subjects"][0]["namespace"]).toBe(
          "iam-sync",
        );
      }
    });
  });
});

describe("outside the kustomization", () => {
  it("the token Secret's example validates and holds no real token", async () => {
    const text = await readFile(join(DEPLOY, "secret.example.yaml"), "utf8");
    const secret = parseAllDocuments(text)[0]!.toJS() as K8sObject;
    expect(() => new Secret(secret).validate()).not.toThrow();
    expect(secret["stringData"]).toEqual({ token: "replace-me" });
    // Never rendered into an overlay: a real token does not belong in git.
    const listed = await Promise.all(
      (await sources()).filter((f) => f.endsWith("kustomization.yaml")).map((f) => readFile(f, "utf8")),
    );
    expect(listed.join("\n")).not.toContain("secret.example.yaml");
  });

  it("the Dockerfile pins its base by digest, runs under tini, ships no npm and runs as non-root", async () => {
    const dockerfile = await readFile(join(ROOT, "Dockerfile"), "utf8");
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(3);
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24-bookworm-slim@sha256:[0-9a-f]{64}$/m);
    expect(dockerfile).toContain("--omit=dev");
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toContain('ENTRYPOINT ["/usr/bin/tini", "--", "usersync"]');
    // The runtime stage (after the last FROM) removes npm and never runs it.
    const runtime = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    expect(runtime).toContain("rm -rf /usr/local/lib/node_modules/npm");
    expect(runtime).not.toMatch(/^RUN npm/m);
    expect(runtime).toContain("install -y --no-install-recommends tini");
  });

  it("the image carries the OCI annotations, and CI writes its SBOM (CycloneDX) beside it", async () => {
    const dockerfile = await readFile(join(ROOT, "Dockerfile"), "utf8");
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as {
      version: string;
      license: string;
      dependencies: Record<string, string>;
    };
    const runtime = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    for (const key of [
      "title",
      "description",
      "version",
      "revision",
      "created",
      "source",
      "licenses",
      "base.name",
    ])
      expect(runtime).toMatch(
        new RegExp(`^\\s*(LABEL )?org\\.opencontainers\\.image\\.${key.replace(".", "\\.")}=`, "m"),
      );
    expect(runtime).toContain(`ARG VERSION=${pkg.version}`);
    expect(runtime).toContain(`org.opencontainers.image.licenses="${pkg.license}"`);
    const check = await readFile(join(ROOT, "scripts", "check-image.sh"), "utf8");
    expect(check).toContain('--build-arg "VERSION=$version"');
    expect(check).toContain('npm sbom --prefix "$work/sbom" --sbom-format cyclonedx --package-lock-only');
    // What that command writes for a tree: a CycloneDX document naming every dependency.
    const r = spawnSync("npm", ["sbom", "--sbom-format", "cyclonedx", "--package-lock-only"], {
      cwd: ROOT,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(r.status, r.stderr).toBe(0);
    const sbom = JSON.parse(r.stdout) as {
      bomFormat: string;
      components: { name: string; scope?: string }[];
    };
    expect(sbom.bomFormat).toBe("CycloneDX");
    const required = new Set(sbom.components.filter((c) => c.scope === "required").map((c) => c.name));
    for (const name of Object.keys(pkg.dependencies)) expect(required, name).toContain(name);
  }, 60_000);
});
