// Sums vitest JSON reports and prints the one plain line CI reads last: "N passed, N failed".
// Above it, one line per report (named after its file: unit, reliability, e2e-node24), so a test
// that runs twice (the end-to-end suite on the machine's Node and on Node 24) is seen to count
// once per run, and skipped tests (an LDAP test without slapd) are not hidden.
// Exits non-zero when a report is missing, a test failed, or no test ran.
import { readFileSync } from "node:fs";
import { basename } from "node:path";

let passed = 0;
let failed = 0;
let broken = false;
for (const file of process.argv.slice(2)) {
  try {
    const report = JSON.parse(readFileSync(file, "utf8"));
    const p = report.numPassedTests ?? 0;
    // A failed test, or a file that failed without one (it did not load): numFailedTestSuites
    // would count each failed test's describe block and file again.
    const unloaded = (report.testResults ?? []).filter(
      (file) => file.status === "failed" && !(file.assertionResults ?? []).some((t) => t.status === "failed"),
    ).length;
    const f = (report.numFailedTests ?? 0) + unloaded;
    const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    console.log(
      `${basename(file, ".json")}: ${p} passed, ${f} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`,
    );
    passed += p;
    failed += f;
  } catch (err) {
    console.error(`ci-summary: cannot read ${file}: ${err.message}`);
    broken = true;
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 || broken ? 1 : 0);
