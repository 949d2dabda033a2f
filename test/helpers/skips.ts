/**
 * A skipped test is never silent: each test file that skips tests for want of a tool (or of a
 * machine's property) says why on stderr, once, with what to install. The README's "Developing"
 * section says the same. On CI (`CI` set) the tools are installed by .ci/run, so nothing is
 * skipped there and a missing tool fails instead.
 */
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { findKubectl } from "./kustomize.js";
import { hasPromtool } from "./promtool.js";
import { CHROMIUM } from "./chromium.js";
import { findSlapd, SKIP_MESSAGE as SLAPD_MISSING } from "./slapd.js";

export const WHY: Record<Need, string> = {
  kubectl:
    "kubectl with kustomize 4.1+ (kubectl 1.22 or newer) not found: install it (.ci/run fetches kubectl 1.32.3) to run the Kubernetes tests",
  promtool:
    "promtool not found: install the Debian package prometheus (apt-get install --no-install-recommends prometheus; .ci/run does) to run the alert rule tests",
  slapd: SLAPD_MISSING,
  chromium:
    "/usr/bin/chromium not found: install the Debian package chromium (apt-get install --no-install-recommends chromium; .ci/run does) to run the HTML page tests",
  script: "script (util-linux) not found: install the Debian package bsdutils to run the terminal tests",
  devFull: "/dev/full is missing here (not Linux?): the full-disk tests need it",
  notRoot: "running as root, who may read any file: the unreadable-file test needs another user",
};

export type Need = "kubectl" | "promtool" | "slapd" | "chromium" | "script" | "devFull" | "notRoot";

const HAVE: Record<Need, () => boolean> = {
  kubectl: () => findKubectl() !== undefined,
  promtool: () => hasPromtool,
  slapd: () => findSlapd() !== undefined,
  chromium: () => existsSync(CHROMIUM),
  script: () => spawnSync("script", ["--version"], { stdio: "ignore" }).status === 0,
  devFull: () => existsSync("/dev/full"),
  notRoot: () => process.getuid?.() !== 0,
};

const said = new Set<string>();

/**
 * Whether to skip the tests that need `needs` (for `describe.skipIf`/`it.skipIf`); says why once
 * per reason. `onCi: "run"` keeps them running on CI, where a missing tool must fail.
 */
export function skipWithout(needs: readonly Need[], o: { what: string; onCi?: "run" }): boolean {
  if (o.onCi === "run" && process.env["CI"]) return false;
  const missing = needs.filter((n) => !HAVE[n]());
  for (const n of missing) {
    const line = `skipped (${o.what}): ${WHY[n]}`;
    if (!said.has(line)) console.warn(line);
    said.add(line);
  }
  return missing.length > 0;
}
