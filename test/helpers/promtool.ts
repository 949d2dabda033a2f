/**
 * Which of the shipped alerts (deploy/kubernetes/overlays/alerts, rendered) fire over given
 * series: `promtool test rules` with the PrometheusRule's spec as the rule file, the series held
 * for ten minutes, and the expected ALERTS{alertstate="firing"} at six (past every `for` but the
 * 26-hour one). `promtool` is the Debian package prometheus; .ci/run installs it.
 */
import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stringify } from "yaml";
import { find, render } from "./kustomize.js";

export const hasPromtool = spawnSync("promtool", ["--version"]).status === 0;

export interface Series {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const selector = (name: string, labels: Record<string, string>): string =>
  `${name}{${Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(",")}}`;

/** Runs promtool; `status` 0 when exactly `firing` (alert labels without alertname/alertstate) fire. */
export async function checkFiring(
  series: readonly Series[],
  firing: readonly { alertname: string; labels: Record<string, string> }[],
  dir: string,
): Promise<{ status: number | null; output: string }> {
  const rule = find(render("alerts"), "PrometheusRule", "usersync");
  await writeFile(join(dir, "usersync-rules.yaml"), stringify(rule["spec"]));
  const test = {
    rule_files: ["usersync-rules.yaml"],
    evaluation_interval: "1m",
    tests: [
      {
        interval: "1m",
        input_series: series.map((s) => ({ series: selector(s.name, s.labels), values: `${s.value}x10` })),
        promql_expr_test: [
          {
            expr: 'ALERTS{alertstate="firing"}',
            eval_time: "6m",
            exp_samples: firing.map((a) => ({
              labels: selector("ALERTS", { ...a.labels, alertname: a.alertname, alertstate: "firing" }),
              value: 1,
            })),
          },
        ],
      },
    ],
  };
  await writeFile(join(dir, "walkthrough.promtool.yaml"), stringify(test));
  const r = spawnSync("promtool", ["test", "rules", join(dir, "walkthrough.promtool.yaml")], {
    encoding: "utf8",
  });
  return { status: r.status, output: r.stdout + r.stderr };
}
