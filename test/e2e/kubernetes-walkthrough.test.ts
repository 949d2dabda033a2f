/**
 * docs/kubernetes.md's first deployment, step by step, with what a cluster would run replaced by
 * the built CLI: a copy of deploy/kubernetes with its settings pointed at the emulator (seeded
 * with the demo organization) and a Pushgateway stand-in, each job run as its pod would run it
 * (rendered by `kubectl kustomize`, test/helpers/kustomize.ts; one folder stands in for the shared
 * volume). Export, a first sync that changes nothing, the audit, an onboarding batch merged into
 * users.yaml, leavers pending for the grace period and then held back by the guard, and the docs' own `kubectl patch` that allows them
 * once. After the held-back run and after the allowed one, the shipped alerts are evaluated by
 * promtool over what the Pushgateway would hold.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments, stringify } from "yaml";
import { loadSeedFile, startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { ROOT, runCli, type CliResult } from "./run-cli.js";
import { startFakeKubeApi } from "../helpers/fake-kube-api.js";
import { exposedSeries, startFakePushgateway } from "../helpers/fake-pushgateway.js";
import { DEPLOY, find, podRun, render, type K8sObject } from "../helpers/kustomize.js";
import { checkFiring } from "../helpers/promtool.js";
import { ageStateFile } from "../helpers/state-file.js";
import { skipWithout } from "../helpers/skips.js";

const TOKEN = "walkthrough-token";
const WORKLOADS = {
  "hourly-sync": "usersync",
  "daily-audit": "usersync-audit",
  onboarding: "usersync-onboarding",
};
type Overlay = keyof typeof WORKLOADS;

let emulator: EmulatorHandle;
let gateway: Awaited<ReturnType<typeof startFakePushgateway>>;
let kube: Awaited<ReturnType<typeof startFakeKubeApi>>;
let dir: string;
let deploy: string;

const usersFile = (): string => join(deploy, "components", "source", "file", "users.yaml");

/** The copy's files, names and bytes, as one digest. */
async function copyDigest(): Promise<string> {
  const hash = createHash("sha256");
  const files = (await readdir(deploy, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(await readFile(file))
      .update("\0");
  return hash.digest("hex");
}

/**
 * `kubectl kustomize` of an overlay of the copy (about 0.5 s of CPU a render). A step whose copy
 * is byte for byte the one an earlier render read gets that render's objects again (a deep copy):
 * every file the steps edit changes the digest, so each edit is rendered anew by kubectl.
 */
const renders = new Map<string, K8sObject[]>();
async function renderOverlay(overlay: Overlay): Promise<K8sObject[]> {
  const key = `${overlay} ${await copyDigest()}`;
  let objects = renders.get(key);
  if (!objects) renders.set(key, (objects = render({ dir: join(deploy, "overlays", overlay) })));
  return structuredClone(objects);
}

/** Runs a workload (the overlay's CronJob, or a Job made from it) as its pod would. */
async function runJob(overlay: Overlay, job?: (cronJob: K8sObject) => K8sObject): Promise<CliResult> {
  const objects = await renderOverlay(overlay);
  const cronJob = find(objects, "CronJob", WORKLOADS[overlay]);
  const pod = await podRun(objects, job ? job(cronJob) : cronJob, { root: join(dir, "pod"), token: TOKEN });
  // What differs from the pod: where the service-account folder is and the API server.
  const kubeEnv = {
    ...kube.env(),
    USERSYNC_OUTPUT_KUBERNETES_SERVICE_ACCOUNT_DIR: await kube.serviceAccountDir(),
  };
  return runCli(pod.args, { env: { ...pod.env, ...(overlay === "onboarding" ? kubeEnv : {}) } });
}

const hasLogin = (email: string): boolean => emulator.state().idpUsers.some((u) => u.email === email);
const writes = (): number => {
  const c = emulator.counters().byMethod;
  return (c["POST"] ?? 0) + (c["PUT"] ?? 0) + (c["PATCH"] ?? 0) + (c["DELETE"] ?? 0);
};

/** What `kubectl create job NAME --from=cronjob/…` makes, piped through the docs' `kubectl patch`. */
async function allowDeletesJob(cronJob: K8sObject, n: number): Promise<K8sObject> {
  const docs = await readFile(join(ROOT, "docs", "kubernetes.md"), "utf8");
  const patch = /kubectl patch --local -f - --type=json -o yaml \\\n\s*-p '([^']+)'/.exec(docs)?.[1];
  expect(patch, "docs/kubernetes.md shows the patch").toContain("--allow-deletes=12");
  const job = {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "usersync-allow-deletes", namespace: cronJob["metadata"]["namespace"] },
    spec: cronJob["spec"]["jobTemplate"]["spec"],
  };
  const args = ["patch", "--local", "-f", "-", "--type=json", "-o", "yaml", "-p"];
  const r = spawnSync("kubectl", [...args, patch!.replace("=12", `=${n}`)], {
    input: stringify(job),
    encoding: "utf8",
  });
  expect(r.status, r.stderr).toBe(0);
  return parseAllDocuments(r.stdout)[0]!.toJS() as K8sObject;
}

describe.skipIf(skipWithout(["kubectl", "promtool"], { what: "the Kubernetes walkthrough", onCi: "run" }))(
  "docs/kubernetes.md's first deployment, run",
  // Each step runs the built CLI once or twice and renders with kubectl: seconds each, more under load.
  { timeout: 120_000 },
  () => {
    beforeAll(async () => {
      emulator = await startEmulator({
        port: 0,
        tokens: { [TOKEN]: "admin" },
        seed: await loadSeedFile(join(ROOT, "fixtures", "demo", "organization.yaml")),
      });
      [gateway, kube] = await Promise.all([startFakePushgateway(), startFakeKubeApi()]);
      dir = await mkdtemp(join(tmpdir(), "usersync-walkthrough-"));
      deploy = join(dir, "deploy");
      await cp(DEPLOY, deploy, { recursive: true });
    });
    afterAll(async () => {
      await Promise.all([emulator.close(), gateway.close(), kube.close()]);
      await rm(dir, { recursive: true, force: true });
    });

    it("1. settings/ says where it runs, once for every overlay", async () => {
      const file = join(deploy, "settings", "kustomization.yaml");
      const text = (await readFile(file, "utf8"))
        .replace("https://analytics.example.com", emulator.url)
        .replace("http://prometheus-pushgateway.monitoring:9091", gateway.url);
      await writeFile(file, text);
      for (const overlay of Object.keys(WORKLOADS))
        expect(JSON.stringify(await renderOverlay(overlay as Overlay))).toContain(emulator.url);
    });

    it("3. the export is the desired state, and validates", async () => {
      const exported = await runCli(["export", "--base-url", emulator.url, "--out", usersFile()], {
        env: { USERSYNC_TOKEN: TOKEN },
      });
      expect(exported.code, exported.stderr).toBe(0);
      const validated = await runCli(["validate", usersFile()]);
      expect(validated.code, validated.stdout + validated.stderr).toBe(0);
    });

    it("5. the first run changes nothing and exits 0; 6. its metrics are pushed", async () => {
      const before = writes();
      const first = await runJob("hourly-sync");
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain("No changes");
      expect(writes()).toBe(before);
      const push = gateway.pushes.at(-1)!;
      expect(push.path).toBe("/metrics/job/usersync/namespace/usersync");
      expect(push.samples).toContainEqual({
        name: "usersync_last_exit_code",
        // The one organization is named by the host of its URL (settings/), as a target by its name.
        labels: { command: "apply", organization: new URL(emulator.url).host },
        value: 0,
      });
      const audit = await runJob("daily-audit");
      expect(audit.code, audit.stdout + audit.stderr).toBe(0);
      expect(gateway.pushes.at(-1)!.path).toBe("/metrics/job/usersync-audit/namespace/usersync");
    });

    it("onboarding a batch creates the person with a password in a Secret; merged into users.yaml, the sync keeps them", async () => {
      const batch = await runJob("onboarding");
      expect(batch.code, batch.stdout + batch.stderr).toBe(0);
      expect(hasLogin("new.hire@example.com")).toBe(true);
      expect(kube.passwords().get("new.hire@example.com")).toMatch(/.{12,}/);

      const onboarded = parse(
        await readFile(join(deploy, "components", "schedule", "onboarding", "onboarding.yaml"), "utf8"),
      );
      const users = parse(await readFile(usersFile(), "utf8"));
      users.users.push(...onboarded.users);
      await writeFile(usersFile(), stringify(users));
      const sync = await runJob("hourly-sync");
      expect(sync.code, sync.stdout + sync.stderr).toBe(0);
      expect(hasLogin("new.hire@example.com")).toBe(true);
      expect((await runJob("daily-audit")).code).toBe(0);
    });

    const leavers: string[] = [];

    it("leavers over policy.maxDeletes are held back (exit 3), and the held-back alert fires on what was pushed", async () => {
      const users = parse(await readFile(usersFile(), "utf8"));
      const gone = (users.users as { email: string }[])
        .filter((u) => u.email.endsWith("@demo.example") && !u.email.startsWith("admin@"))
        .slice(0, 3);
      leavers.push(...gone.map((u) => u.email));
      users.users = users.users.filter((u: { email: string }) => !leavers.includes(u.email));
      await writeFile(usersFile(), stringify(users));

      // Within the grace period (policy.revokeAfter: 72h) they are pending: nothing is revoked.
      const pending = await runJob("hourly-sync");
      expect(pending.code, pending.stdout + pending.stderr).toBe(0);
      expect(pending.stdout).toContain("No changes now. 3 people pending (policy.revokeAfter).");
      for (const email of leavers) expect(hasLogin(email), email).toBe(true);
      // Three days later (the state file on the volume aged by 73 h), the guard holds them back.
      await ageStateFile(join(dir, "pod", "var", "lib", "usersync", "state.json"), 73);
      const held = await runJob("hourly-sync");
      expect(held.code, held.stdout + held.stderr).toBe(3);
      expect(held.stdout).toContain("Allow them for one run with --allow-deletes 3");
      for (const email of leavers) expect(hasLogin(email), email).toBe(true);
      // The report on the volume lists each of them as held back.
      const report = JSON.parse(
        await readFile(join(dir, "pod", "var", "lib", "usersync", "report.json"), "utf8"),
      ) as { steps: { outcome: string; target: string }[] };
      // Their logins, by email (the revokes of their groups, by user id, are held back with them).
      const heldBack = report.steps
        .filter((s) => s.outcome === "heldBack" && s.target.includes("@"))
        .map((s) => s.target);
      expect(heldBack.sort()).toEqual([...leavers].sort());

      const series = exposedSeries(gateway.pushes);
      const sync = { job: "usersync", namespace: "usersync", organization: new URL(emulator.url).host };
      expect(series).toContainEqual({
        name: "usersync_deletions_held_back",
        labels: { command: "apply", ...sync },
        value: 3,
      });
      const alerts = await checkFiring(
        series,
        [
          {
            alertname: "UsersyncDeletionsHeldBack",
            labels: { command: "apply", severity: "warning", ...sync },
          },
        ],
        dir,
      );
      expect(alerts.status, alerts.output).toBe(0);
    });

    it("the docs' kubectl patch allows them for one run: revoked, exit 0, no alert fires", async () => {
      const objects = await renderOverlay("hourly-sync");
      const job = await allowDeletesJob(find(objects, "CronJob", "usersync"), leavers.length);
      expect(job["spec"]["template"]["spec"]["containers"][0]["args"]).toContain("--allow-deletes=3");
      const run = await runJob("hourly-sync", () => job);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      for (const email of leavers) expect(hasLogin(email), email).toBe(false);
      expect(hasLogin("new.hire@example.com")).toBe(true);

      const alerts = await checkFiring(exposedSeries(gateway.pushes), [], dir);
      expect(alerts.status, alerts.output).toBe(0);
      expect((await runJob("daily-audit")).code).toBe(0);
    });
  },
);
