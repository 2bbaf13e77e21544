#!/usr/bin/env node
// Reads vitest JSON reports and prints the single closing line CI reads:
// "N passed, N failed" (", N skipped" when any). Lint/type-check failure counts as one failure.
// With CI_STRICT_SKIPS=1 (set by .ci/run, which provides every dependency a test may need) a
// skipped test counts as failed and is named: CI cannot pass by skipping.
import { existsSync, readFileSync } from 'node:fs';

const [staticRc, ...reports] = process.argv.slice(2);
let passed = 0;
let failed = Number(staticRc) === 0 ? 0 : 1;
let skipped = 0;
let sawReport = false;
const skippedNames = [];
for (const file of reports) {
  if (!file || !existsSync(file)) continue;
  sawReport = true;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  for (const suite of report.testResults ?? []) {
    for (const test of suite.assertionResults ?? []) {
      if (test.status === 'pending' || test.status === 'skipped' || test.status === 'todo') skippedNames.push(test.fullName ?? test.title);
    }
  }
}
if (process.env.CI_STRICT_SKIPS === '1' && skipped > 0) {
  for (const name of skippedNames) console.log(`skipped on CI, counted as failed: ${name}`);
  failed += skipped;
  skipped = 0;
}
if (!sawReport) failed += 1;
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
