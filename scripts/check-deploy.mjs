// Checks deploy/kubernetes offline, as CI does (.ci/run) and test/deploy/alerts.test.ts:
// `kubectl kustomize` renders every example overlay and every allowed combination of the
// components (deploy/kubernetes/components/combinations.yaml: each source with each layout and
// each of its schedules alone, and with all of them), the PrometheusRule's spec (from the
// rendered alerts overlay: the manifest itself, no second copy) is written as the plain rule file
// promtool reads, and promtool checks it and runs the unit tests of
// test/deploy/alerts.promtool.yaml beside it. (test/deploy/combinations.test.ts validates the
// rendered objects against the Kubernetes schemas and each mounted config with the CLI.)
//
// Every rendering also passes the composition check (scripts/compose-check.mjs): each Indexed Job
// agrees with its config, and the alerts with its organizations; each overlay's own
// kustomization.yaml lists its components in order, with settings, and no patch that matches
// nothing. The alerts composed with each layout (components/alerts first) give a second rule file,
// usersync-estate-rules.yaml, with layout/many-orgs' organizations, for
// test/deploy/alerts-estate.promtool.yaml.
//
//   node scripts/check-deploy.mjs [--out DIR] [--overlays-only]
//   node scripts/check-deploy.mjs --overlay DIR [--overlay DIR2 ...]
//
// --overlays-only skips the combinations (test/deploy/alerts.test.ts, which needs the rules only).
// --overlay DIR checks a person's own composition only (docs/kubernetes.md, "Composing a
// deployment"): it renders DIR and names each problem the check finds (exit 1), or says it composes;
// with several, also every object two of them would both write (same kind, namespace and name).
// DIR (default: a temporary folder, removed at the end) keeps <overlay>.yaml,
// combinations/<source>.<layout>.<schedules>.yaml, usersync-rules.yaml and the copy of the tests. Needs kubectl (kustomize 4.1 or newer: components, labels) and
// promtool (Debian package prometheus) on PATH; .ci/run installs both when they are missing.
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, parseAllDocuments, stringify } from "yaml";
import { kustomizationProblems, renderedProblems } from "./compose-check.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DEPLOY = join(ROOT, "deploy", "kubernetes");
const OVERLAYS = join(DEPLOY, "overlays");
const TESTS = join(ROOT, "test", "deploy", "alerts.promtool.yaml");
const ESTATE_TESTS = join(ROOT, "test", "deploy", "alerts-estate.promtool.yaml");
const RULES_FILE = "usersync-rules.yaml";
const ESTATE_RULES_FILE = "usersync-estate-rules.yaml";

function fail(message) {
  console.error(`check-deploy: ${message}`);
  process.exit(1);
}

function run(command, args, what) {
  const r = spawnSync(command, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.error?.code === "ENOENT")
    fail(`${command} is not installed: ${what} needs it (.ci/run installs it; see docs/kubernetes.md)`);
  if (r.status !== 0) {
    const hint = /unknown field "(components|labels)"/.test(r.stderr)
      ? `\nThis kubectl's kustomize is too old for components: use kubectl 1.22 or newer.`
      : "";
    fail(`${what} failed (${command} ${args.join(" ")}):\n${r.stdout}${r.stderr}${hint}`);
  }
  return r.stdout;
}

/**
 * Every allowed combination of deploy/kubernetes/components/combinations.yaml, as the list of
 * components a composition names in order (schedules, layout, source; settings comes last).
 */
function combinations(text) {
  const { sources, layouts } = parse(text);
  const out = [];
  for (const source of sources)
    for (const [layout, schedules] of Object.entries(layouts))
      for (const picked of [...schedules.map((s) => [s]), ...(schedules.length > 1 ? [schedules] : [])])
        out.push({
          name: `${source}.${layout}.${picked.join("+")}`,
          components: [...picked.map((s) => `schedule/${s}`), `layout/${layout}`, `source/${source}`],
        });
  return out;
}

/** The composition check of a rendering; stops with every problem it names. */
function check(what, objects, dir) {
  const problems = [
    ...(dir ? kustomizationProblems(dir, DEPLOY, objects) : []),
    ...renderedProblems(objects),
  ];
  if (problems.length > 0) fail(`${what} does not compose:\n  ${problems.join("\n  ")}`);
}

function renderDir(dir, what) {
  const text = run("kubectl", ["kustomize", dir], what);
  return { text, objects: parseAllDocuments(text).map((d) => d.toJS()) };
}

/**
 * Objects two compositions would both write, differently: the second `kubectl apply` replaces the
 * first's. (The same object in both, such as the shared ServiceAccount of the sync's and the
 * audit's overlays, is no collision.)
 */
function collisions(renders) {
  const seen = new Map();
  const out = [];
  for (const { dir, objects } of renders)
    for (const o of objects) {
      const key = `${o.kind} ${o.metadata?.namespace ?? "(no namespace)"}/${o.metadata?.name}`;
      const first = seen.get(key);
      if (first === undefined) seen.set(key, { dir, text: JSON.stringify(o) });
      else if (first.dir !== dir && first.text !== JSON.stringify(o))
        out.push(`${key} differs between ${first.dir} and ${dir}`);
    }
  return out;
}

const overlays = process.argv.flatMap((a, i) => (process.argv[i - 1] === "--overlay" ? [a] : []));
if (process.argv.includes("--overlay")) {
  if (overlays.length === 0) fail("--overlay needs a folder: --overlay DIR");
  const renders = overlays.map((d) => {
    const dir = resolve(d);
    const { objects } = renderDir(dir, `rendering ${d}`);
    check(d, objects, dir);
    return { dir: d, objects };
  });
  const both = collisions(renders);
  if (both.length > 0)
    fail(
      `these compositions collide: applied together, the second replaces the first's objects:\n  ${both.join("\n  ")}\n` +
        "Give each its own namespace, or make one composition of many organizations (layout/many-orgs; " +
        'docs/kubernetes.md, "Composing a deployment").',
    );
  for (const { dir, objects } of renders)
    console.log(`check-deploy: ${dir} composes: ${objects.length} objects, no problem found`);
  process.exit(0);
}

/** Renders the components (under components/) and settings in a temporary composition. */
function compose(components, what) {
  const dir = mkdtempSync(join(tmpdir(), "usersync-compose-"));
  try {
    writeFileSync(
      join(dir, "kustomization.yaml"),
      stringify({
        apiVersion: "kustomize.config.k8s.io/v1beta1",
        kind: "Kustomization",
        components: [...components.map((c) => join(DEPLOY, "components", c)), join(DEPLOY, "settings")].map(
          (c) => relative(dir, c),
        ),
      }),
    );
    const rendered = renderDir(dir, what);
    check(what, rendered.objects, dir);
    return rendered;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const outIndex = process.argv.indexOf("--out");
const keep = outIndex > 0 ? process.argv[outIndex + 1] : undefined;
const out = keep ?? mkdtempSync(join(tmpdir(), "usersync-deploy-"));
mkdirSync(out, { recursive: true });
try {
  const rules = [];
  for (const overlay of readdirSync(OVERLAYS).sort()) {
    const { text: rendered, objects: docs } = renderDir(
      join(OVERLAYS, overlay),
      `rendering overlays/${overlay}`,
    );
    writeFileSync(join(out, `${overlay}.yaml`), rendered);
    check(`overlays/${overlay}`, docs, join(OVERLAYS, overlay));
    rules.push(...docs.filter((d) => d?.kind === "PrometheusRule"));
    console.log(`check-deploy: overlays/${overlay} renders ${docs.length} objects`);
  }
  const combos = process.argv.includes("--overlays-only")
    ? []
    : combinations(readFileSync(join(DEPLOY, "components", "combinations.yaml"), "utf8"));
  mkdirSync(join(out, "combinations"), { recursive: true });
  for (const combo of combos) {
    const { text } = compose(combo.components, `the combination ${combo.name}`);
    writeFileSync(join(out, "combinations", `${combo.name}.yaml`), text);
  }
  if (combos.length > 0) console.log(`check-deploy: ${combos.length} combinations of the components render`);
  // The alerts with each layout: one organization adds nothing; many list their organizations.
  let estate;
  for (const layout of Object.keys(
    parse(readFileSync(join(DEPLOY, "components", "combinations.yaml"), "utf8")).layouts,
  )) {
    const name = `file.${layout}.alerts+hourly-sync`;
    const { text, objects } = compose(
      ["alerts", "schedule/hourly-sync", `layout/${layout}`, "source/file"],
      name,
    );
    writeFileSync(join(out, "combinations", `${name}.yaml`), text);
    const rule = objects.find((o) => o.kind === "PrometheusRule");
    if (layout === "many-orgs") estate = rule;
  }
  if (rules.length !== 1) fail(`expected one PrometheusRule in the overlays, found ${rules.length}`);
  if (!estate) fail("the alerts composed with layout/many-orgs render no PrometheusRule");
  writeFileSync(join(out, RULES_FILE), stringify(rules[0].spec));
  writeFileSync(join(out, ESTATE_RULES_FILE), stringify(estate.spec));
  copyFileSync(TESTS, join(out, "alerts.promtool.yaml"));
  copyFileSync(ESTATE_TESTS, join(out, "alerts-estate.promtool.yaml"));
  run(
    "promtool",
    ["check", "rules", join(out, RULES_FILE), join(out, ESTATE_RULES_FILE)],
    "promtool check rules",
  );
  run(
    "promtool",
    ["test", "rules", join(out, "alerts.promtool.yaml"), join(out, "alerts-estate.promtool.yaml")],
    "promtool test rules",
  );
  console.log(`check-deploy: promtool check and test rules passed (${rules[0].metadata.name})`);
} finally {
  if (keep === undefined) rmSync(out, { recursive: true, force: true });
}
