// The composition check of scripts/check-deploy.mjs: what `kubectl kustomize` renders without a
// word but deploys wrong. `kustomizationProblems` reads a person's own kustomization.yaml (and
// the components of theirs it lists): the components in their order (schedules and alerts, one
// layout, one source, your own, settings last), settings left out, a patch whose target (or whose
// kind and name) matches no rendered object, an images: entry that changes no container.
// `renderedProblems` reads what it renders, as CI does for every shipped combination: each
// Indexed Job agrees with the config it mounts (completions, TARGET_LIST, one optional token
// Secret per target) and the alerts list the same organizations. Each problem is one sentence:
// what, where, what to do.
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { parse, parseAllDocuments } from "yaml";

const ORDER = ["schedule", "layout", "source", "yours", "settings"];
const ORDER_TEXT =
  "schedules (and alerts), one layout, one source, your own components, settings " +
  '(docs/kubernetes.md, "Composing a deployment")';

function readKustomization(dir) {
  for (const name of ["kustomization.yaml", "kustomization.yml", "Kustomization"]) {
    const file = join(dir, name);
    if (existsSync(file)) return { file, doc: parse(readFileSync(file, "utf8")) ?? {} };
  }
  return undefined;
}

/**
 * What a component path is: a shipped schedule, alerts, layout, source, settings (in a copy of
 * deploy/kubernetes too: known by its place beside components/combinations.yaml), or yours.
 */
function kindOf(path) {
  const real = existsSync(path) ? realpathSync(path) : path;
  const shipped = (root) => existsSync(join(root, "components", "combinations.yaml"));
  const parts = real.split(sep);
  const [a, b, c] = parts.slice(-3);
  if (c === "settings" && shipped(dirname(real))) return { kind: "settings", name: "settings" };
  if (b === "components" && c === "alerts" && shipped(dirname(dirname(real))))
    return { kind: "schedule", name: "alerts" };
  if (
    a === "components" &&
    ["schedule", "layout", "source"].includes(b) &&
    shipped(dirname(dirname(dirname(real))))
  )
    return { kind: b, name: `${b}/${c}` };
  return { kind: "yours", name: relative(process.cwd(), path) || "." };
}

const labelsMatch = (selector, labels = {}) =>
  String(selector)
    .split(",")
    .map((term) => term.trim().split("="))
    .every(([k, v]) => labels[k] === v);

function matches(target, obj) {
  if (target.kind && obj.kind !== target.kind) return false;
  if (target.name && !new RegExp(`^(?:${target.name})$`).test(obj.metadata?.name ?? "")) return false;
  if (target.labelSelector && !labelsMatch(target.labelSelector, obj.metadata?.labels)) return false;
  return true;
}

function patchProblems(where, dir, patches, objects) {
  const out = [];
  for (const [i, p] of (patches ?? []).entries()) {
    const at = `${where}: patches[${i}]${p.path ? ` (${p.path})` : ""}`;
    if (p.target) {
      if (!objects.some((o) => matches(p.target, o)))
        out.push(
          `${at}: its target ${JSON.stringify(p.target)} matches no object the composition renders: ` +
            "the patch changes nothing. Check its kind, name and labelSelector against " +
            "`kubectl kustomize` of this folder.",
        );
      continue;
    }
    const text = p.patch ?? (p.path ? readFileSync(join(dir, p.path), "utf8") : "");
    for (const d of parseAllDocuments(text).map((x) => x.toJS())) {
      if (!d?.kind || !d.metadata?.name) continue;
      if (!objects.some((o) => o.kind === d.kind && o.metadata?.name === d.metadata.name))
        out.push(
          `${at}: it patches the ${d.kind} ${d.metadata.name}, which the composition does not ` +
            "render: the patch changes nothing. Name an object it renders, or give the patch a " +
            "target (kind and labelSelector).",
        );
    }
  }
  return out;
}

/**
 * The problems of the kustomization in `dir` (a person's overlay over deploy/kubernetes at
 * `deploy`), given the objects it renders.
 */
export function kustomizationProblems(dir, deploy, objects) {
  const k = readKustomization(dir);
  if (!k) return [`${dir}: no kustomization.yaml`];
  const where = relative(process.cwd(), k.file) || k.file;
  const out = [];
  const picked = (k.doc.components ?? []).map((c) => ({ path: c, ...kindOf(resolve(dir, c)) }));
  for (let i = 1; i < picked.length; i++) {
    const [before, after] = [picked[i - 1], picked[i]];
    if (ORDER.indexOf(before.kind) > ORDER.indexOf(after.kind))
      out.push(
        `${where}: components in the wrong order: ${before.path} comes before ${after.path}. ` +
          `The order is ${ORDER_TEXT}: a layout patches the schedules listed before it, and ` +
          "settings must come last to reach every object.",
      );
  }
  // An overlay of a composition (resources: [../acme]) is checked as that composition is.
  if (picked.length > 0 && !picked.some((c) => c.kind === "settings"))
    out.push(
      `${where}: settings is not among the components: add ${relative(dir, join(deploy, "settings"))} ` +
        "last, or no object gets its namespace, image tag and the ConfigMap usersync-settings " +
        "every pod reads.",
    );
  const layouts = picked.filter((c) => c.kind === "layout").length;
  if (layouts !== 1 && picked.some((c) => c.kind === "schedule" && c.name !== "alerts"))
    out.push(`${where}: ${layouts} layout components: pick exactly one (${ORDER_TEXT}).`);
  const sources = picked.filter((c) => c.kind === "source").length;
  if (sources > 1) out.push(`${where}: ${sources} source components: pick one (${ORDER_TEXT}).`);
  out.push(...patchProblems(where, dir, k.doc.patches, objects));
  for (const c of picked.filter((x) => x.kind === "yours")) {
    const own = readKustomization(resolve(dir, c.path));
    if (own)
      out.push(
        ...patchProblems(relative(process.cwd(), own.file), dirname(own.file), own.doc.patches, objects),
      );
  }
  const images = objects.flatMap((o) =>
    (o.spec?.jobTemplate?.spec?.template?.spec?.containers ?? []).map((c) => c.image),
  );
  for (const image of k.doc.images ?? []) {
    const want = image.digest
      ? `${image.newName ?? image.name}@${image.digest}`
      : `${image.newName ?? image.name}${image.newTag ? `:${image.newTag}` : ""}`;
    if (!images.some((i) => i === want || (!image.newTag && !image.digest && i.startsWith(`${want}:`))))
      out.push(
        `${where}: images: ${image.name} changes no container (they run ${[...new Set(images)].join(", ")}): ` +
          "the manifests name the image ghcr.io/example/usersync; write that as its name.",
      );
  }
  return out;
}

const envOf = (container) => Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));

/** The problems of rendered objects: each Indexed Job against its config, and the alerts. */
export function renderedProblems(objects) {
  const out = [];
  const listed = new Set();
  for (const rule of objects.filter((o) => o.kind === "PrometheusRule"))
    for (const g of rule.spec?.groups ?? [])
      for (const r of g.rules ?? [])
        if (r.record === "usersync:organization_listed") listed.add(r.labels?.organization);
  let targetsOfSync;
  for (const cronJob of objects.filter((o) => o.kind === "CronJob")) {
    const job = cronJob.spec.jobTemplate.spec;
    const name = `CronJob ${cronJob.metadata.name}`;
    const pod = job.template.spec;
    const container = pod.containers.find((c) => c.name === "usersync") ?? pod.containers[0];
    const args = container.args ?? [];
    const configPath = args[args.indexOf("--config") + 1] ?? "";
    const volume = pod.volumes?.find((v) => v.name === "config");
    if (!volume?.configMap || !configPath.startsWith("/etc/usersync/")) continue;
    const map = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === volume.configMap.name);
    const text = map?.data?.[configPath.slice("/etc/usersync/".length)];
    if (text === undefined) {
      out.push(
        `${name}: its config ${configPath} is not in the ConfigMap ${volume.configMap.name} it mounts: ` +
          "compose a source (source/file, source/entra, ...) or merge your config into that ConfigMap.",
      );
      continue;
    }
    const targets = (parse(text)?.targets ?? []).map((t) => t.name).sort();
    const list = targets.join(",");
    const indexed = job.completionMode === "Indexed";
    if (!indexed && targets.length > 0 && !args.includes("--all-targets") && !args.includes("--target"))
      out.push(
        `${name}: ${configPath} lists ${targets.length} targets but the job runs one organization: ` +
          "compose layout/many-orgs, or mount a config without targets.",
      );
    if (!indexed && !args.includes("--all-targets")) continue;
    const token = pod.volumes.find((v) => v.name === "token");
    const secrets = (token?.projected?.sources ?? []).map((s) => s.secret).filter(Boolean);
    const want = targets.map((t) => `usersync-token-${t}`).join(",");
    if (secrets.map((s) => s.name).join(",") !== want)
      out.push(
        `${name}: its token volume projects ${secrets.map((s) => s.name).join(",") || "no Secret"}; ` +
          `the targets of ${configPath} need ${want}.`,
      );
    for (const s of secrets.filter((x) => x.optional !== true))
      out.push(
        `${name}: the Secret ${s.name} is not optional: if it is missing, no organization's pod starts. Add optional: true.`,
      );
    if (!indexed) continue;
    if (job.completions !== targets.length)
      out.push(
        `${name}: completions ${job.completions} but ${configPath} lists ${targets.length} targets ` +
          `(${list}): set completions (and maxFailedIndexes) to ${targets.length}, or an organization is never synced.`,
      );
    if (envOf(container).TARGET_LIST !== list)
      out.push(
        `${name}: TARGET_LIST is "${envOf(container).TARGET_LIST}" but ${configPath} lists "${list}": make them equal.`,
      );
    if (cronJob.metadata.name === "usersync") targetsOfSync = list;
  }
  if (listed.size > 0 && targetsOfSync !== undefined && [...listed].sort().join(",") !== targetsOfSync)
    out.push(
      `PrometheusRule: the alerts expect the organizations ${[...listed].sort().join(",")} ` +
        `(usersync:organization_listed) but the sync runs ${targetsOfSync}: replace the rules of the group ` +
        'usersync-organizations with one per target (docs/kubernetes.md, "Monitoring").',
    );
  return out;
}
