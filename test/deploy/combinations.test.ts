/**
 * Every allowed combination of the kustomize components (deploy/kubernetes/components/
 * combinations.yaml), rendered by scripts/check-deploy.mjs as CI renders them: each object
 * validates against the Kubernetes schemas; each schedule's CronJob is there, with the image and
 * namespace of settings/; each mounts a config its ConfigMap holds, which loads with the
 * environment of its container; the layout makes the per-organization schedules an Indexed Job
 * whose indexes, target list and token Secrets are the config's targets; the source's own wiring
 * (Entra and Google workload identity, the Okta key, the LDAP password) reaches every pod that
 * reads it. And every component folder is in the list, so none is left out of the check.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { loadConfig } from "../../src/config/index.js";
import { ROOT } from "../e2e/run-cli.js";
import { schemaProblem } from "../helpers/k8s-schemas.js";
import { DEPLOY, containerEnv, find, jobSpecOf, podSpecOf, type K8sObject } from "../helpers/kustomize.js";
import { skipWithout } from "../helpers/skips.js";

interface Matrix {
  sources: string[];
  layouts: Record<string, string[]>;
}

const CRONJOB: Record<string, string | string[]> = {
  "hourly-sync": "usersync",
  "daily-audit": "usersync-audit",
  onboarding: "usersync-onboarding",
  "access-review": "usersync-review",
  // The frequent changes-only run and the nightly full reconcile (issue 48).
  "changes-sync": ["usersync-changes", "usersync-full-reconcile"],
};
const cronJobsOf = (schedule: string): string[] => [CRONJOB[schedule] ?? []].flat();
/** A schedule's other CronJobs: the access review's quarterly campaign. */
const ALSO: Record<string, string[]> = { "access-review": ["usersync-campaign"] };
const SNAPSHOT = "/var/lib/usersync/campaigns/{date}/review.json";
const REVIEWS = "/var/lib/usersync/reviews";

/**
 * The monthly review lists once: a first container writes the snapshot (a copy of the review's
 * own, the source's wiring too), then the CSV (one organization's, or the combined CSV of all
 * with --all-targets) and the page render from it (`--from`), never listing again.
 */
function expectListedOnce(cronJob: K8sObject, targets: string[]): void {
  const pod = podSpecOf(cronJob);
  const container = pod["containers"][0] as K8sObject;
  const args = container["args"] as string[];
  const config = args.slice(0, 3);
  const [snapshot, csv] = pod["initContainers"] as K8sObject[];
  expect(snapshot!["name"]).toBe("usersync-snapshot");
  expect(snapshot!["args"]).toEqual([
    ...config,
    "--format",
    "json",
    "--out",
    `${REVIEWS}/access-review.json`,
    ...targets,
  ]);
  const from = ["--from", `${REVIEWS}/access-review.json`];
  const csvOut = targets.length > 0 ? "--combined-csv" : "--out";
  expect(csv!["name"]).toBe("usersync-csv");
  expect(csv!["args"]).toEqual([
    ...config,
    ...from,
    "--format",
    "csv",
    csvOut,
    `${REVIEWS}/access-review.csv`,
    ...targets,
  ]);
  expect(args).toEqual([
    ...config,
    ...from,
    "--format",
    "html",
    "--out",
    `${REVIEWS}/access-review.html`,
    ...targets,
  ]);
  for (const init of [snapshot, csv]) expect({ ...init, name: "usersync", args }).toEqual(container);
  expect(jobSpecOf(cronJob)["podFailurePolicy"]["rules"].slice(0, 2)).toEqual(
    ["usersync-snapshot", "usersync-csv"].map((containerName) => ({
      action: "FailJob",
      onExitCodes: { containerName, operator: "In", values: [2, 3, 4] },
    })),
  );
}

const matrixText = await readFile(join(DEPLOY, "components", "combinations.yaml"), "utf8");
const matrix = parse(matrixText) as Matrix;

/** The combinations check-deploy renders, by the name of its output file. */
function expected(): { name: string; source: string; layout: string; schedules: string[] }[] {
  const out = [];
  for (const source of matrix.sources)
    for (const [layout, schedules] of Object.entries(matrix.layouts))
      for (const picked of [...schedules.map((s) => [s]), ...(schedules.length > 1 ? [schedules] : [])])
        out.push({ name: `${source}.${layout}.${picked.join("+")}`, source, layout, schedules: picked });
  return out;
}

describe("the component list", () => {
  it("names every component folder, and only those", async () => {
    for (const kind of ["source", "layout", "schedule"]) {
      const folders = (await readdir(join(DEPLOY, "components", kind))).sort();
      const listed =
        kind === "source"
          ? matrix.sources
          : kind === "layout"
            ? Object.keys(matrix.layouts)
            : [...new Set(Object.values(matrix.layouts).flat())];
      expect([...listed].sort(), kind).toEqual(folders);
    }
  });
});

describe.skipIf(skipWithout(["kubectl"], { what: "the component combinations", onCi: "run" }))(
  "every allowed combination of the components",
  () => {
    let out: string;
    let check: ReturnType<typeof spawnSync>;
    const rendered = new Map<string, K8sObject[]>();
    beforeAll(async () => {
      out = await mkdtemp(join(tmpdir(), "usersync-combinations-"));
      check = spawnSync(process.execPath, [join(ROOT, "scripts", "check-deploy.mjs"), "--out", out], {
        encoding: "utf8",
      });
      if (check.status === 0)
        for (const c of expected())
          rendered.set(
            c.name,
            parseAllDocuments(await readFile(join(out, "combinations", `${c.name}.yaml`), "utf8")).map(
              (d) => d.toJS() as K8sObject,
            ),
          );
    }, 600_000);
    afterAll(() => out && rm(out, { recursive: true, force: true }));

    it("renders each one (check-deploy, as CI runs it)", () => {
      expect(check.status, `${String(check.stdout)}${String(check.stderr)}`).toBe(0);
      expect(String(check.stdout)).toContain(
        `check-deploy: ${expected().length} combinations of the components render`,
      );
      expect(rendered.size).toBe(expected().length);
      // Each source with each layout; every schedule of a layout alone and all at once.
      expect(expected().length).toBe(matrix.sources.length * (5 + 1 + 4 + 1));
    });

    it.each(expected())(
      "$name: validates, and each schedule reads its config as its pod sees it",
      async (c) => {
        const objects = rendered.get(c.name)!;
        for (const obj of objects) expect(schemaProblem(obj), c.name).toBeUndefined();
        for (const obj of objects) expect(obj["metadata"]["namespace"], c.name).toBe("usersync");
        const cronJobs = objects.filter((o) => o["kind"] === "CronJob");
        expect(cronJobs.map((j) => j["metadata"]["name"]).sort()).toEqual(
          c.schedules.flatMap((s) => [...cronJobsOf(s), ...(ALSO[s] ?? [])]).sort(),
        );
        if (c.schedules.includes("access-review")) {
          // The campaign: a snapshot by a copy of its container (the source's wiring too), then the opening.
          const pod = podSpecOf(find(objects, "CronJob", "usersync-campaign"));
          const [init] = pod["initContainers"] as K8sObject[];
          const container = pod["containers"][0] as K8sObject;
          const config =
            c.layout === "many-orgs" ? "/etc/usersync/multi-org.yaml" : "/etc/usersync/usersync.yaml";
          const targets = c.layout === "many-orgs" ? ["--all-targets"] : [];
          expect(init!["args"]).toEqual([
            "review",
            "--config",
            config,
            "--format",
            "json",
            "--out",
            SNAPSHOT,
            ...targets,
          ]);
          expect(container["args"]).toEqual([
            ...["campaign", "open", "--config", config, "--review", SNAPSHOT],
            ...["--campaign", "/var/lib/usersync/campaigns/{date}/campaign.json"],
            ...["--csv", "/var/lib/usersync/campaigns/{date}/campaign.csv"],
            ...["--html", "/var/lib/usersync/campaigns/{date}/campaign.html", ...targets],
          ]);
          expect({ ...init, name: "usersync", args: container["args"] }).toEqual(container);
        }
        const root = await mkdtemp(join(tmpdir(), "usersync-combination-"));
        try {
          for (const [schedule, name] of c.schedules.flatMap((s) => cronJobsOf(s).map((n) => [s, n]))) {
            const cronJob = find(objects, "CronJob", name!);
            const pod = podSpecOf(cronJob);
            const container = pod["containers"][0] as K8sObject;
            expect(container["image"]).toBe("ghcr.io/example/usersync:0.1.0");
            const args = container["args"] as string[];
            const configPath = args[args.indexOf("--config") + 1]!;
            const shared = cronJob["metadata"]["labels"]["usersync.io/config"] === "shared";
            const indexed =
              c.layout === "many-orgs" &&
              cronJob["metadata"]["labels"]["usersync.io/per-organization"] === "true";
            // The access review of many organizations: one pod over all of them, each with its token.
            const allTargets = c.layout === "many-orgs" && schedule === "access-review";
            const volume = (pod["volumes"] as K8sObject[]).find((v) => v["name"] === "config")!;
            const data = find(objects, "ConfigMap", volume["configMap"]["name"] as string)["data"] as Record<
              string,
              string
            >;
            const file = configPath.replace("/etc/usersync/", "");
            expect(Object.keys(data), `${c.name} ${schedule}`).toContain(file);
            const config = parse(data[file]!) as { targets?: { name: string }[]; source?: { type?: string } };
            const names = (config.targets ?? []).map((t) => t.name).sort();
            const job = jobSpecOf(cronJob);
            if (indexed) {
              expect(file).toBe("multi-org.yaml");
              expect(job["completionMode"]).toBe("Indexed");
              expect(job["completions"]).toBe(names.length);
              expect(names.length).toBeGreaterThan(1);
              const env = Object.fromEntries(
                (container["env"] as K8sObject[]).map((e) => [e["name"], e["value"]]),
              );
              expect(env["TARGET_LIST"]).toBe(names.join(","));
              expect(args.slice(-4)).toEqual([
                "--target-index",
                "$(JOB_COMPLETION_INDEX)",
                "--target-list",
                "$(TARGET_LIST)",
              ]);
              const token = (pod["volumes"] as K8sObject[]).find((v) => v["name"] === "token")!;
              // Each optional: one organization's missing Secret fails its index alone.
              expect(
                (token["projected"]["sources"] as K8sObject[]).map((s) => [
                  s["secret"]["name"],
                  s["secret"]["optional"],
                ]),
              ).toEqual(names.map((n) => [`usersync-token-${n}`, true]));
            } else if (allTargets) {
              expect(file).toBe("multi-org.yaml");
              expect(job["completionMode"]).toBeUndefined();
              expectListedOnce(cronJob, ["--all-targets"]);
              const token = (pod["volumes"] as K8sObject[]).find((v) => v["name"] === "token")!;
              expect(
                (token["projected"]["sources"] as K8sObject[]).map((s) => [
                  s["secret"]["name"],
                  s["secret"]["optional"],
                ]),
              ).toEqual(names.map((n) => [`usersync-token-${n}`, true]));
            } else {
              expect(job["completionMode"], `${c.name} ${schedule}`).toBeUndefined();
              expect(args).not.toContain("--target-index");
              expect(names, `${c.name} ${schedule}: a one-organization config`).toEqual([]);
              if (schedule === "access-review") expectListedOnce(cronJob, []);
            }
            if (shared) expect(config.source?.type ?? "file", `${c.name} ${schedule}`).toBe(c.source);
            // The source's wiring reaches the pods that read it.
            const labels = cronJob["spec"]["jobTemplate"]["spec"]["template"]["metadata"]?.["labels"] ?? {};
            const mounts = (container["volumeMounts"] as K8sObject[]).map((m) => m["mountPath"] as string);
            if (shared && c.source === "entra") expect(labels["azure.workload.identity/use"]).toBe("true");
            if (shared && c.source === "okta") expect(mounts).toContain("/var/run/secrets/okta");
            if (shared && c.source === "ldap") expect(mounts).toContain("/var/run/secrets/ldap");
            if (shared && c.source === "google") {
              // Workload identity federation: the pool's token and the credentials config, no key.
              expect(mounts).toContain("/var/run/secrets/google");
              const google = (pod["volumes"] as K8sObject[]).find((v) => v["name"] === "google")!;
              const sources = google["projected"]["sources"] as K8sObject[];
              expect(
                sources.map((s) => s["serviceAccountToken"]?.["path"] ?? s["configMap"]?.["name"]),
              ).toEqual(["token", "usersync-google"]);
              const credentials = JSON.parse(
                find(objects, "ConfigMap", "usersync-google")["data"]["credentials.json"] as string,
              ) as { type: string; credential_source: { file: string }; audience: string };
              expect(credentials.type).toBe("external_account");
              expect(credentials.credential_source.file).toBe("/var/run/secrets/google/token");
              // The token's audience is the provider the credentials config exchanges it at.
              expect(sources[0]!["serviceAccountToken"]["audience"]).toBe(`https:${credentials.audience}`);
              expect(
                (config.source as { google?: { credentialsFile?: string } }).google?.credentialsFile,
              ).toBe("/var/run/secrets/google/credentials.json");
            }
            // The config loads as the pod reads it: with the environment of its container.
            const env = containerEnv(objects, cronJob);
            const at = join(root, `${schedule}-${file}`);
            await writeFile(at, data[file]!);
            await writeFile(join(root, "token"), "a-token\n");
            if (!indexed) env["USERSYNC_TARGET_TOKEN_FILE"] = join(root, "token");
            const loaded = await loadConfig({ file: at, env, cwd: root });
            expect(loaded.warnings, `${c.name} ${schedule}`).toEqual([]);
            expect(loaded.output.metricsPushJob).toBe(env["USERSYNC_OUTPUT_METRICS_PUSH_JOB"]);
          }
          if (c.source === "entra")
            expect(find(objects, "ServiceAccount", "usersync")["metadata"]["annotations"]).toMatchObject({
              "azure.workload.identity/client-id": expect.stringMatching(/^[0-9a-f-]{36}$/),
            });
        } finally {
          await rm(root, { recursive: true, force: true });
        }
      },
    );
  },
);
