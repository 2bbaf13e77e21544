#!/usr/bin/env node
// Reads vitest JSON reports and prints the single closing line CI reads:
// "N passed, N failed" (", N skipped" when any). Lint/type-check failure counts as one failure.
import { existsSync, readFileSync } from 'node:fs';

const [staticRc, ...reports] = process.argv.slice(2);
let passed = 0;
let failed = Number(staticRc) === 0 ? 0 : 1;
let skipped = 0;
let sawReport = false;
for (const file of reports) {
  if (!file || !existsSync(file)) continue;
  sawReport = true;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}
if (!sawReport) failed += 1;
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
