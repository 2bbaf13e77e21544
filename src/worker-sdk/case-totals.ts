/** How one test case of a report ended; `error` is a test that broke rather than an assertion that failed. */
export type CaseStatus = 'passed' | 'failed' | 'error' | 'skipped';

export interface CaseTotals {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  /** The duration the report states, else the sum of its cases' times; to the millisecond. */
  seconds: number;
}

/**
 * Totals of the test cases of a report, whatever its format: counted by status from the cases
 * themselves (a report's own count attributes are often stale or absent), with the time the
 * report states or else the sum of the cases' own.
 */
export function totalsOfCases(cases: ReadonlyArray<{ status: CaseStatus; seconds: number }>, statedSeconds: number | null): CaseTotals {
  const totals: CaseTotals = { tests: cases.length, failures: 0, errors: 0, skipped: 0, seconds: 0 };
  for (const testCase of cases) {
    if (testCase.status === 'failed') totals.failures += 1;
    else if (testCase.status === 'error') totals.errors += 1;
    else if (testCase.status === 'skipped') totals.skipped += 1;
    totals.seconds += testCase.seconds;
  }
  totals.seconds = Math.round((statedSeconds ?? totals.seconds) * 1000) / 1000;
  return totals;
}
