// Checks deploy/kubernetes offline, as CI does (.ci/run) and test/deploy/alerts.test.ts:
// `kubectl kustomize` renders every overlay, the PrometheusRule's spec (from the rendered alerts
// overlay: the manifest itself, no second copy) is written as the plain rule file promtool reads,
// and promtool checks it and runs the unit tests of test/deploy/alerts.promtool.yaml beside it.
//
//   node scripts/check-deploy.mjs [--out DIR]
//
// DIR (default: a temporary folder, removed at the end) keeps <overlay>.yaml, usersync-rules.yaml
// and the copy of the tests. Needs kubectl (kustomize 4.1 or newer: components, labels) and
// promtool (Debian package prometheus) on PATH; .ci/run installs both when they are missing.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments, stringify } from "yaml";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const OVERLAYS = join(ROOT, "deploy", "kubernetes", "overlays");
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
  if (rules.length !== 1) fail(`expected one PrometheusRule in the overlays, found ${rules.length}`);
  writeFileSync(join(out, RULES_FILE), stringify(rules[0].spec));
  copyFileSync(TESTS, join(out, "alerts.promtool.yaml"));
  run("promtool", ["check", "rules", join(out, RULES_FILE)], "promtool check rules");
  run("promtool", ["test", "rules", join(out, "alerts.promtool.yaml")], "promtool test rules");
  console.log(`check-deploy: promtool check and test rules passed (${rules[0].metadata.name})`);
} finally {
  if (keep === undefined) rmSync(out, { recursive: true, force: true });
}
