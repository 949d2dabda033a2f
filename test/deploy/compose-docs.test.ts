/**
 * docs/kubernetes.md, "Composing a deployment": its kustomization.yaml and targets.yaml, written
 * beside the examples in a copy of deploy/kubernetes with the Entra sample config renamed to the
 * docs' three organizations, render with `kubectl kustomize` into objects that validate against
 * the Kubernetes schemas, whose Indexed Jobs agree with the config they mount (indexes, target
 * list, token Secrets), with the docs' app registration on the ServiceAccount, the access review
 * over every organization, the overlay's own image and alerts that expect the docs' organizations;
 * and that it passes the composition check the docs give (scripts/check-deploy.mjs --overlay).
 */
import { spawnSync } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "../e2e/run-cli.js";
import { schemaProblem } from "../helpers/k8s-schemas.js";
import { DEPLOY, find, jobSpecOf, podSpecOf, render, type K8sObject } from "../helpers/kustomize.js";
import { skipWithout } from "../helpers/skips.js";

/** The named YAML blocks (```yaml NAME) of the section. */
async function sectionFiles(): Promise<Map<string, string>> {
  const docs = await readFile(join(ROOT, "docs", "kubernetes.md"), "utf8");
  const start = docs.indexOf("## Composing a deployment");
  const section = docs.slice(start, docs.indexOf("\n## ", start + 1));
  return new Map([...section.matchAll(/^```yaml ([\w./-]+)\n([\s\S]*?)^```$/gm)].map((m) => [m[1]!, m[2]!]));
}

describe.skipIf(skipWithout(["kubectl"], { what: "the docs' composition", onCi: "run" }))(
  "docs/kubernetes.md's composition of an Entra-fed sync of three organizations",
  () => {
    let copy: string;
    let objects: K8sObject[];
    let check: ReturnType<typeof spawnSync>;
    beforeAll(async () => {
      copy = await mkdtemp(join(tmpdir(), "usersync-compose-"));
      await cp(DEPLOY, copy, { recursive: true });
      const dir = join(copy, "overlays", "acme");
      await mkdir(join(dir, "local"), { recursive: true });
      const files = await sectionFiles();
      expect([...files.keys()].sort()).toEqual([
        "kustomization.yaml",
        "local/kustomization.yaml",
        "local/targets.yaml",
        "local/tokens.yaml",
      ]);
      for (const [name, text] of files) await writeFile(join(dir, name), text);
      const sample = await readFile(join(DEPLOY, "components", "source", "entra", "multi-org.yaml"), "utf8");
      await writeFile(
        join(dir, "local", "multi-org.yaml"),
        sample
          .replace(/\balpha\b/g, "emea")
          .replace(/\bbeta\b/g, "amer")
          .replace(/\bgamma\b/g, "apac"),
      );
      objects = render({ dir });
      check = spawnSync(process.execPath, [join(ROOT, "scripts", "check-deploy.mjs"), "--overlay", dir], {
        encoding: "utf8",
      });
    }, 180_000);
    afterAll(() => copy && rm(copy, { recursive: true, force: true }));

    it("renders objects that validate, its sync and audit Indexed Jobs over the config's organizations", () => {
      for (const obj of objects) expect(schemaProblem(obj)).toBeUndefined();
      const config = parse(find(objects, "ConfigMap", "usersync")["data"]["multi-org.yaml"] as string) as {
        targets: { name: string }[];
      };
      const names = config.targets.map((t) => t.name).sort();
      expect(names).toEqual(["amer", "apac", "emea"]);
      for (const name of ["usersync", "usersync-audit"]) {
        const cronJob = find(objects, "CronJob", name);
        const job = jobSpecOf(cronJob);
        expect(job["completionMode"], name).toBe("Indexed");
        expect(job["completions"], name).toBe(names.length);
        expect(job["maxFailedIndexes"], name).toBe(names.length);
        const pod = podSpecOf(cronJob);
        const env = Object.fromEntries(
          (pod["containers"][0]["env"] as K8sObject[]).map((e) => [e["name"], e["value"]]),
        );
        expect(env["TARGET_LIST"], name).toBe(names.join(","));
        expect(pod["containers"][0]["args"].slice(0, 3), name).toContain("/etc/usersync/multi-org.yaml");
        const token = (pod["volumes"] as K8sObject[]).find((v) => v["name"] === "token")!;
        expect(
          (token["projected"]["sources"] as K8sObject[]).map((s) => [
            s["secret"]["name"],
            s["secret"]["items"][0]["path"],
            s["secret"]["optional"],
          ]),
        ).toEqual(names.map((n) => [`usersync-token-${n}`, `${n}/token`, true]));
        expect(cronJob["spec"]["jobTemplate"]["spec"]["template"]["metadata"]["labels"]).toMatchObject({
          "azure.workload.identity/use": "true",
        });
      }
      // The access review: every organization in one pod, with each one's token.
      const review = podSpecOf(find(objects, "CronJob", "usersync-review"));
      expect(review["containers"][0]["args"]).toContain("--all-targets");
      const reviewToken = (review["volumes"] as K8sObject[]).find((v) => v["name"] === "token")!;
      expect((reviewToken["projected"]["sources"] as K8sObject[]).map((s) => s["secret"]["name"])).toEqual(
        names.map((n) => `usersync-token-${n}`),
      );
      // The overlay's own image, settings/ untouched.
      for (const name of ["usersync", "usersync-audit", "usersync-review"])
        expect(podSpecOf(find(objects, "CronJob", name))["containers"][0]["image"]).toBe(
          "registry.acme.example/platform/usersync:0.1.0",
        );
      // The alerts expect the docs' organizations.
      const groups = find(objects, "PrometheusRule", "usersync")["spec"]["groups"] as K8sObject[];
      const listed = groups.find((g) => g["name"] === "usersync-organizations")!["rules"] as K8sObject[];
      expect(listed.map((r) => r["labels"]["organization"])).toEqual(names);
      expect(find(objects, "ServiceAccount", "usersync")["metadata"]["annotations"]).toEqual({
        "azure.workload.identity/client-id": "11111111-2222-3333-4444-555555555555",
        "azure.workload.identity/tenant-id": "acme.onmicrosoft.com",
      });
    });

    it("passes the composition check the docs give", () => {
      expect(check.status, String(check.stdout) + String(check.stderr)).toBe(0);
      expect(String(check.stdout)).toMatch(/composes: \d+ objects, no problem found/);
    });
  },
);
