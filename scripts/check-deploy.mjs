// Checks deploy/kubernetes offline, as CI does (.ci/run) and test/deploy/alerts.test.ts:
// `kubectl kustomize` renders every example overlay and every allowed combination of the
// components (deploy/kubernetes/components/combinations.yaml: each source with each layout and
// each of its schedules alone, and with all of them), the PrometheusRule's spec (from the
// rendered alerts overlay: the manifest itself, no second copy) is written as the plain rule file
// promtool reads, and promtool checks it and runs the unit tests of
// test/deploy/alerts.promtool.yaml beside it. (test/deploy/combinations.test.ts validates the
// rendered objects against the Kubernetes schemas and each mounted config with the CLI.)
//
//   node scripts/check-deploy.mjs [--out DIR] [--overlays-only]
//
// --overlays-only skips the combinations (test/deploy/alerts.test.ts, which needs the rules only).
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
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, parseAllDocuments, stringify } from "yaml";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DEPLOY = join(ROOT, "deploy", "kubernetes");
const OVERLAYS = join(DEPLOY, "overlays");
const TESTS = join(ROOT, "test", "deploy", "alerts.promtool.yaml");
const RULES_FILE = "usersync-rules.yaml";

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

const outIndex = process.argv.indexOf("--out");
const keep = outIndex > 0 ? process.argv[outIndex + 1] : undefined;
const out = keep ?? mkdtempSync(join(tmpdir(), "usersync-deploy-"));
mkdirSync(out, { recursive: true });
try {
  const rules = [];
  for (const overlay of readdirSync(OVERLAYS).sort()) {
    const rendered = run("kubectl", ["kustomize", join(OVERLAYS, overlay)], `rendering overlays/${overlay}`);
    writeFileSync(join(out, `${overlay}.yaml`), rendered);
    const docs = parseAllDocuments(rendered).map((d) => d.toJS());
    rules.push(...docs.filter((d) => d?.kind === "PrometheusRule"));
    console.log(`check-deploy: overlays/${overlay} renders ${docs.length} objects`);
  }
  const combos = process.argv.includes("--overlays-only")
    ? []
    : combinations(readFileSync(join(DEPLOY, "components", "combinations.yaml"), "utf8"));
  mkdirSync(join(out, "combinations"), { recursive: true });
  for (const combo of combos) {
    const dir = mkdtempSync(join(tmpdir(), "usersync-compose-"));
    try {
      const components = [
        ...combo.components.map((c) => join(DEPLOY, "components", c)),
        join(DEPLOY, "settings"),
      ];
      writeFileSync(
        join(dir, "kustomization.yaml"),
        stringify({
          apiVersion: "kustomize.config.k8s.io/v1beta1",
          kind: "Kustomization",
          components: components.map((c) => relative(dir, c)),
        }),
      );
      const rendered = run("kubectl", ["kustomize", dir], `rendering the combination ${combo.name}`);
      writeFileSync(join(out, "combinations", `${combo.name}.yaml`), rendered);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (combos.length > 0) console.log(`check-deploy: ${combos.length} combinations of the components render`);
  if (rules.length !== 1) fail(`expected one PrometheusRule in the overlays, found ${rules.length}`);
  writeFileSync(join(out, RULES_FILE), stringify(rules[0].spec));
  copyFileSync(TESTS, join(out, "alerts.promtool.yaml"));
  run("promtool", ["check", "rules", join(out, RULES_FILE)], "promtool check rules");
  run("promtool", ["test", "rules", join(out, "alerts.promtool.yaml")], "promtool test rules");
  console.log(`check-deploy: promtool check and test rules passed (${rules[0].metadata.name})`);
} finally {
  if (keep === undefined) rmSync(out, { recursive: true, force: true });
}
