// `npm run bench`: every figure in its own node process, one after another (so peak RSS is per
// figure and no two benchmarks share the CPU). `--only N` runs figure N (1-7, 8 for the
// emulator's own throughput, 9 reading from LDAP, 10 bulk membership under a rate limit: about
// 18 minutes at its full size, 11 listing and planning permissions, 12 many organizations, 13 reading
// from Entra ID, 14 reading Okta under its shared rate limit, 15 data filters, 16 the access review, 17 the access review's HTML
// page in Chromium, 18 reading Google Workspace, 19 changes-only runs from Entra ID, 20 from Okta,
// Google and LDAP). Each script prints its table
// and writes bench/results/<name>.json.
import { spawn } from "node:child_process";
import { cpus } from "node:os";
import { join } from "node:path";
import { here } from "./lib.mjs";

const FIGURES = [
  [1, "planner-scale.mjs"],
  [2, "read-input.mjs"],
  [3, "listing.mjs"],
  [4, "apply-throughput.mjs"],
  [5, "engine-overhead.mjs"],
  [6, "baseline.mjs"],
  [7, "rate-limit.mjs"],
  [8, "emulator-throughput.mjs"],
  [9, "read-ldap.mjs"],
  [10, "bulk-membership.mjs"],
  [11, "permissions.mjs"],
  [12, "multi-org.mjs"],
  [13, "read-entra.mjs"],
  [14, "read-okta.mjs"],
  [15, "data-filters.mjs"],
  [16, "review.mjs"],
  [17, "review-html.mjs"],
  [18, "read-google.mjs"],
  [19, "changes-entra.mjs"],
  [20, "changes.mjs"],
];

const at = process.argv.indexOf("--only");
const only = at >= 0 ? Number(process.argv[at + 1]) : undefined;
if (only !== undefined && !FIGURES.some(([n]) => n === only)) {
  console.error(
    `--only takes a figure number (${FIGURES.map(([n]) => n).join(", ")}); got ${process.argv[at + 1]}`,
  );
  process.exit(2);
}

console.log(
  `usersync benchmarks: ${new Date().toISOString()}, node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "unknown"})`,
);
const failed = [];
for (const [n, script] of FIGURES) {
  if (only !== undefined && n !== only) continue;
  console.log(`\n## ${n}. ${script}`);
  const started = performance.now();
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, [join(here, script)], { stdio: "inherit" });
    child.on("error", () => resolve(1));
    child.on("close", (c) => resolve(c ?? 1));
  });
  console.log(
    `(${script}: ${Math.round((performance.now() - started) / 1000)} s${code === 0 ? "" : `, exit ${code}`})`,
  );
  if (code !== 0) failed.push(script);
}
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.join(", ")}`);
  process.exitCode = 1;
}
