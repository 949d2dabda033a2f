// Sums vitest JSON reports and prints the one plain line CI reads: "N passed, N failed".
// Exits non-zero when a report is missing, a test failed, or no test ran.
import { readFileSync } from "node:fs";

let passed = 0;
let failed = 0;
let broken = false;
for (const file of process.argv.slice(2)) {
  try {
    const report = JSON.parse(readFileSync(file, "utf8"));
    passed += report.numPassedTests ?? 0;
    failed += (report.numFailedTests ?? 0) + (report.numFailedTestSuites ?? 0);
  } catch (err) {
    console.error(`ci-summary: cannot read ${file}: ${err.message}`);
    broken = true;
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 || broken ? 1 : 0);
