/**
 * The alerts of deploy/kubernetes/components/alerts: scripts/check-deploy.mjs (what CI runs)
 * renders every overlay, extracts the PrometheusRule's spec as promtool's rule file and runs
 * `promtool test rules` on test/deploy/alerts.promtool.yaml, and on alerts-estate.promtool.yaml
 * with the rules as composed with layout/many-orgs. Here: that it passes, that the rule file is
 * the manifest's spec, that the estate's rules expect the organizations of the config the layout
 * mounts, that promtool really evaluates (a wrong expectation fails), that every metric a rule
 * reads is one usersync writes, and that every alert is tested firing.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { renderMetrics } from "../../src/report/metrics.js";
import { ROOT } from "../e2e/run-cli.js";
import { DEPLOY, type K8sObject } from "../helpers/kustomize.js";
import { parseExposition } from "../helpers/fake-pushgateway.js";
import { samplePlan } from "../report/sample-plan.js";
import { skipWithout } from "../helpers/skips.js";

const TESTS = ["alerts.promtool.yaml", "alerts-estate.promtool.yaml"].map((f) =>
  join(ROOT, "test", "deploy", f),
);

interface PromtoolTests {
  tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
}

async function manifestRules(): Promise<{ alert: string; expr: string }[]> {
  const text = await readFile(join(DEPLOY, "components", "alerts", "prometheusrule.yaml"), "utf8");
  const rule = parseAllDocuments(text)[0]!.toJS() as K8sObject;
  return (rule["spec"]["groups"] as { rules: { alert: string; expr: string }[] }[]).flatMap((g) => g.rules);
}

describe.skipIf(skipWithout(["kubectl", "promtool"], { what: "the alert rules", onCi: "run" }))(
  "the alert rules",
  () => {
    let out: string;
    let check: ReturnType<typeof spawnSync>;
    beforeAll(async () => {
      out = await mkdtemp(join(tmpdir(), "usersync-alerts-"));
      check = spawnSync(
        process.execPath,
        [join(ROOT, "scripts", "check-deploy.mjs"), "--out", out, "--overlays-only"],
        {
          encoding: "utf8",
        },
      );
    }, 120_000);
    afterAll(() => rm(out, { recursive: true, force: true }));

    it("render in every overlay and pass promtool check rules and test rules", async () => {
      expect(check.status, `${String(check.stdout)}${String(check.stderr)}`).toBe(0);
      expect(String(check.stdout)).toMatch(/promtool check and test rules passed/);
      for (const overlay of ["alerts", "daily-audit", "hourly-sync", "onboarding"])
        expect(String(check.stdout)).toContain(`overlays/${overlay} renders`);
      // The rule file promtool read is the manifest's spec, not a copy kept beside it.
      const text = await readFile(join(DEPLOY, "components", "alerts", "prometheusrule.yaml"), "utf8");
      const manifest = parseAllDocuments(text)[0]!.toJS() as K8sObject;
      expect(parse(await readFile(join(out, "usersync-rules.yaml"), "utf8"))).toEqual(manifest["spec"]);
      // Composed with layout/many-orgs, the rules expect each organization of the config it mounts.
      const estate = parse(await readFile(join(out, "usersync-estate-rules.yaml"), "utf8")) as {
        groups: { name: string; rules: { record?: string; labels?: Record<string, string> }[] }[];
      };
      expect(estate.groups.slice(0, -1)).toEqual(manifest["spec"]["groups"]);
      const config = parse(
        await readFile(join(DEPLOY, "components", "source", "file", "multi-org.yaml"), "utf8"),
      ) as { targets: { name: string }[] };
      expect(estate.groups.at(-1)!.rules.map((r) => [r.record, r.labels])).toEqual(
        config.targets.map((t) => [
          "usersync:organization_listed",
          { job: "usersync", organization: t.name },
        ]),
      );
    });

    it("promtool really evaluates them: a wrong expectation fails", async () => {
      const tests = await readFile(join(out, "alerts.promtool.yaml"), "utf8");
      expect(tests).toContain("held 12 deletion(s) back");
      await writeFile(
        join(out, "wrong.promtool.yaml"),
        tests.replace("held 12 deletion(s) back", "held 11 deletion(s) back"),
      );
      const r = spawnSync("promtool", ["test", "rules", join(out, "wrong.promtool.yaml")], {
        encoding: "utf8",
      });
      expect(r.status).toBe(1);
      expect(r.stdout + r.stderr).toMatch(/FAILED[\s\S]*UsersyncDeletionsHeldBack/);
    });
  },
);

describe("the alert rules and the metrics", () => {
  it("every metric a rule reads is one usersync writes", async () => {
    const written = new Set(
      parseExposition(
        renderMetrics({
          command: "apply",
          plan: samplePlan(),
          exitCode: 0,
          durationSeconds: 1,
          requests: 1,
          retries: 0,
          now: 1_800_000_000,
        }),
      ).map((s) => s.name),
    );
    const read = new Set(
      (await manifestRules()).flatMap((r) => [...r.expr.matchAll(/\busersync_[a-z_]+/g)].map((m) => m[0])),
    );
    expect(read.size).toBe(4);
    for (const name of read) expect(written, name).toContain(name);
  });

  it("every alert has a promtool test that expects it to fire", async () => {
    const files = await Promise.all(
      TESTS.map(async (f) => parse(await readFile(f, "utf8")) as PromtoolTests),
    );
    const fired = new Set(
      files
        .flatMap((f) => f.tests)
        .flatMap((t) =>
          (t.alert_rule_test ?? []).filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname),
        ),
    );
    expect([...fired].sort()).toEqual([...new Set((await manifestRules()).map((r) => r.alert))].sort());
  });
});
