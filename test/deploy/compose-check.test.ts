/**
 * `node scripts/check-deploy.mjs --overlay DIR`, the composition check docs/kubernetes.md gives a
 * person for their own overlay (and CI runs on every shipped combination): a composition that
 * sets its own image with images: (winning over settings/, without editing it) and lists the
 * alerts passes; each mistake that `kubectl kustomize` renders without a word is named: the
 * components in the wrong order, settings left out, a patch that matches nothing, an images:
 * entry that changes no container, an Indexed Job whose completions are fewer than the config's
 * targets, and two one-organization compositions that would write the same objects differently.
 */
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ROOT } from "../e2e/run-cli.js";
import { DEPLOY, find, jobSpecOf, podSpecOf, render } from "../helpers/kustomize.js";
import { skipWithout } from "../helpers/skips.js";

function check(...dirs: string[]): { status: number | null; output: string } {
  const args = dirs.flatMap((d) => ["--overlay", d]);
  const r = spawnSync(process.execPath, [join(ROOT, "scripts", "check-deploy.mjs"), ...args], {
    encoding: "utf8",
  });
  return { status: r.status, output: r.stdout + r.stderr };
}

describe.skipIf(skipWithout(["kubectl"], { what: "the composition check", onCi: "run" }))(
  "the composition check of a person's own overlay",
  () => {
    let root: string;
    const overlay = async (name: string, kustomization: object, local?: object): Promise<string> => {
      const dir = join(root, name);
      await mkdir(join(dir, "local"), { recursive: true });
      const c = (path: string): string => relative(dir, join(DEPLOY, path));
      const k = kustomization as { components: string[] };
      k.components = k.components.map((p) => (p === "local" ? p : c(p)));
      await writeFile(
        join(dir, "kustomization.yaml"),
        stringify({ apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization", ...k }),
      );
      if (local)
        await writeFile(
          join(dir, "local", "kustomization.yaml"),
          stringify({ apiVersion: "kustomize.config.k8s.io/v1alpha1", kind: "Component", ...local }),
        );
      return dir;
    };
    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), "usersync-compose-check-"));
    });
    afterAll(() => root && rm(root, { recursive: true, force: true }));

    it("passes a good composition, whose own images: sets the image without editing settings/", async () => {
      const dir = await overlay("good", {
        components: [
          "components/alerts",
          "components/schedule/hourly-sync",
          "components/layout/many-orgs",
          "components/source/file",
          "settings",
        ],
        images: [
          { name: "ghcr.io/example/usersync", newName: "registry.acme.example/usersync", newTag: "1.4.2" },
        ],
      });
      const r = check(dir);
      expect(r.output).toMatch(/composes: \d+ objects, no problem found/);
      expect(r.status).toBe(0);
      const pod = podSpecOf(find(render({ dir }), "CronJob", "usersync"));
      expect(pod["containers"][0]["image"]).toBe("registry.acme.example/usersync:1.4.2");
    }, 120_000);

    it("names the components in the wrong order, settings left out, a patch and an image that change nothing", async () => {
      const dir = await overlay(
        "bad",
        {
          components: [
            "components/layout/one-org",
            "components/schedule/hourly-sync",
            "components/source/file",
            "local",
          ],
          images: [{ name: "usersync", newName: "registry.acme.example/usersync", newTag: "1.4.2" }],
        },
        {
          patches: [
            {
              target: { kind: "CronJob", name: "usersync-sync" },
              patch: "- { op: add, path: /spec/suspend, value: true }",
            },
          ],
        },
      );
      const r = check(dir);
      expect(r.status).toBe(1);
      expect(r.output).toContain("components in the wrong order: ");
      expect(r.output).toMatch(/layout\/one-org comes before \S+schedule\/hourly-sync/);
      expect(r.output).toContain("settings is not among the components");
      expect(r.output).toMatch(/local\/kustomization\.yaml: patches\[0\]: its target .* matches no object/);
      expect(r.output).toContain("images: usersync changes no container");
    }, 120_000);

    it("names an Indexed Job that runs fewer indexes than the config has targets", async () => {
      const dir = await overlay(
        "short",
        {
          components: [
            "components/schedule/hourly-sync",
            "components/layout/many-orgs",
            "components/source/file",
            "local",
            "settings",
          ],
        },
        {
          patches: [
            {
              target: { kind: "CronJob", labelSelector: "usersync.io/per-organization=true" },
              patch: "- { op: replace, path: /spec/jobTemplate/spec/completions, value: 2 }",
            },
          ],
        },
      );
      expect(jobSpecOf(find(render({ dir }), "CronJob", "usersync"))["completions"]).toBe(2);
      const r = check(dir);
      expect(r.status).toBe(1);
      expect(r.output).toContain(
        "CronJob usersync: completions 2 but /etc/usersync/multi-org.yaml lists 3 targets (alpha,beta,gamma)",
      );
    }, 120_000);

    it("names two one-organization compositions that collide in one namespace, not two that share objects", () => {
      const overlays = join(DEPLOY, "overlays");
      const same = check(join(overlays, "hourly-sync"), join(overlays, "daily-audit"));
      expect(same.status, same.output).toBe(0);
      const r = check(join(overlays, "hourly-sync"), join(overlays, "okta-hourly-sync"));
      expect(r.status).toBe(1);
      expect(r.output).toContain("these compositions collide");
      expect(r.output).toMatch(
        /CronJob usersync\/usersync differs between \S+hourly-sync and \S+okta-hourly-sync/,
      );
    }, 120_000);
  },
);
