// Prints the plain closing line "N passed, N failed" from vitest's JSON report.
// A failed type-check counts as one failed test; a missing report counts as a failure too.
import { existsSync, readFileSync } from 'node:fs';

const [reportPath, typecheckFailed] = process.argv.slice(2);
let passed = 0;
let failed = Number(typecheckFailed) > 0 ? 1 : 0;
if (!reportPath || !existsSync(reportPath)) {
  failed += 1;
  console.log('vitest wrote no report: counting it as a failure');
} else {
  const report = JSON.parse(readFileSync(reportPath, 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  for (const suite of report.testResults ?? []) {
    if (suite.status === 'failed' && (suite.assertionResults ?? []).length === 0) failed += 1;
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
