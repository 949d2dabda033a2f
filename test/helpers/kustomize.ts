/**
 * The shipped Kubernetes manifests as a pod would see them: `kubectl kustomize` renders an
 * overlay of deploy/kubernetes, and `podRun` lays out one CronJob's pod in a folder (its
 * ConfigMaps as files under their mount paths, a stand-in for the token Secret) and returns the
 * container's arguments and environment (env with $(VAR) references and the namespace fieldRef
 * resolved, envFrom ConfigMaps) so the built CLI runs the shipped config, not a copy. What differs
 * from a pod is only where the mounts are: arguments and config keys that name a mounted path
 * are pointed into the folder (the keys through their USERSYNC_ variables). A volume claim given
 * a folder (`claims`) is that folder in every pod that mounts it, as a PersistentVolumeClaim is.
 * `findKubectl()` is undefined without a kubectl whose kustomize knows components (4.1+);
 * .ci/run installs one.
 */
import { spawnSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { envNameOf } from "../../src/config/index.js";
import { ROOT } from "../e2e/run-cli.js";

export const DEPLOY = join(ROOT, "deploy", "kubernetes");
export const OVERLAYS = [
  "alerts",
  "daily-audit",
  "entra-hourly-sync",
  "entra-multi-org",
  "hourly-sync",
  "multi-org",
  "okta-hourly-sync",
  "onboarding",
] as const;
export type Overlay = (typeof OVERLAYS)[number];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type K8sObject = Record<string, any>;

let kubectl: string | null | undefined;

/** "kubectl" when it renders kustomize components, else undefined. */
export function findKubectl(): string | undefined {
  if (kubectl === undefined) {
    const r = spawnSync("kubectl", ["version", "--client", "-o", "json"], { encoding: "utf8" });
    const version = r.status === 0 ? (JSON.parse(r.stdout) as { kustomizeVersion?: string }) : {};
    const [major, minor] = (version.kustomizeVersion ?? "v0.0").slice(1).split(".").map(Number);
    kubectl = major! > 4 || (major === 4 && minor! >= 1) ? "kubectl" : null;
  }
  return kubectl ?? undefined;
}

/** Renders a kustomization folder (an overlay of deploy/kubernetes by default) into its objects. */
export function render(overlay: Overlay | { dir: string }): K8sObject[] {
  const dir = typeof overlay === "string" ? join(DEPLOY, "overlays", overlay) : overlay.dir;
  const r = spawnSync(findKubectl() ?? "kubectl", ["kustomize", dir], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`kubectl kustomize ${dir} failed:\n${r.stderr}`);
  return parseAllDocuments(r.stdout).map((d) => d.toJS() as K8sObject);
}

export function find(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o["kind"] === kind && o["metadata"]?.["name"] === name);
  if (!found) throw new Error(`no ${kind}/${name} among ${objects.map((o) => o["kind"]).join(", ")}`);
  return found;
}

/** The pod spec of a CronJob or a Job. */
export function podSpecOf(obj: K8sObject): K8sObject {
  return obj["kind"] === "CronJob"
    ? obj["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    : obj["spec"]["template"]["spec"];
}

export function jobSpecOf(obj: K8sObject): K8sObject {
  return obj["kind"] === "CronJob" ? obj["spec"]["jobTemplate"]["spec"] : obj["spec"];
}

/** The data of the ConfigMap a pod refers to, by its rendered name (with a hash suffix where kustomize gave one). */
function configMap(objects: K8sObject[], name: string): Record<string, string> {
  return find(objects, "ConfigMap", name)["data"] as Record<string, string>;
}

/** The container's environment as the kubelet builds it: envFrom first, then env in order. */
export function containerEnv(objects: K8sObject[], workload: K8sObject): Record<string, string> {
  const container = podSpecOf(workload)["containers"][0] as K8sObject;
  const env: Record<string, string> = {};
  for (const from of container["envFrom"] ?? [])
    Object.assign(env, configMap(objects, from["configMapRef"]["name"] as string));
  for (const e of container["env"] ?? []) {
    if (e["valueFrom"]?.["fieldRef"]?.["fieldPath"] === "metadata.namespace")
      env[e["name"]] = workload["metadata"]["namespace"] as string;
    else if (typeof e["value"] === "string")
      env[e["name"]] = (e["value"] as string).replace(
        /\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g,
        (m, v: string) => env[v] ?? m,
      );
    else
      throw new Error(`env ${String(e["name"])}: only values and the namespace fieldRef are resolved here`);
  }
  return env;
}

export interface PodRun {
  /** The container's arguments, mounted paths pointed into the folder. */
  args: string[];
  /** The container's environment, plus USERSYNC_ variables for config keys naming a mounted path. */
  env: Record<string, string>;
  /** Where a path of the pod is: under `root`, or in the folder of the claim mounted there. */
  at(podPath: string): string;
}

/**
 * Lays one workload's pod out under `root`: its ConfigMap volumes as files, a token file, empty
 * folders for the other mounts. `token` is what the mounted token Secret holds; `claims` maps a
 * PersistentVolumeClaim's name to the folder that stands in for it (shared by every pod given it).
 */
export async function podRun(
  objects: K8sObject[],
  workload: K8sObject,
  options: { root: string; token: string; claims?: Record<string, string> },
): Promise<PodRun> {
  const pod = podSpecOf(workload);
  const container = pod["containers"][0] as K8sObject;
  const volumeOf = (m: K8sObject): K8sObject =>
    (pod["volumes"] as K8sObject[]).find((v) => v["name"] === m["name"])!;
  const mounts = (container["volumeMounts"] as K8sObject[]).map((m) => m["mountPath"] as string);
  const under = (value: string): boolean => mounts.some((m) => value === m || value.startsWith(`${m}/`));
  // The mounts of a claimed volume, by mount path, and the folder that stands in for the claim.
  const claimed = new Map<string, string>();
  for (const m of container["volumeMounts"] as K8sObject[]) {
    const claim = volumeOf(m)["persistentVolumeClaim"]?.["claimName"] as string | undefined;
    const folder = claim === undefined ? undefined : options.claims?.[claim];
    if (folder !== undefined) claimed.set(m["mountPath"] as string, folder);
  }
  const at = (podPath: string): string => {
    for (const [mount, folder] of claimed)
      if (podPath === mount || podPath.startsWith(`${mount}/`)) return join(folder, relative(mount, podPath));
    return join(options.root, podPath);
  };
  for (const m of container["volumeMounts"] as K8sObject[]) {
    const volume = volumeOf(m);
    await mkdir(at(m["mountPath"]), { recursive: true });
    if (volume["configMap"])
      for (const [file, text] of Object.entries(configMap(objects, volume["configMap"]["name"])))
        await writeFile(at(join(m["mountPath"], file)), text);
    if (volume["secret"]?.["secretName"] === "usersync-token")
      await writeFile(at(join(m["mountPath"], "token")), options.token);
  }
  const args = (container["args"] as string[]).map((a) => (under(a) ? at(a) : a));
  const env = containerEnv(objects, workload);
  const configAt = args.indexOf("--config");
  const configArg = configAt < 0 ? undefined : args[configAt + 1];
  if (configArg !== undefined) {
    const walk = (node: unknown, path: string[]): void => {
      if (typeof node === "string" && under(node)) env[envNameOf(path.join("."))] = at(node);
      else if (node && typeof node === "object" && !Array.isArray(node))
        for (const [k, v] of Object.entries(node)) walk(v, [...path, k]);
    };
    walk(parse(await readFile(configArg, "utf8")), []);
  }
  return { args, env, at };
}
