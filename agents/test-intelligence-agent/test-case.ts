import { totalsOfCases, type CaseStatus } from '../../src/worker-sdk/case-totals.js';

export type { CaseStatus };

/** The report formats the lane reads. */
export type ReportFormat = 'junit' | 'tap' | 'json';

/** One test case as one report records it. */
export interface TestCase {
  name: string;
  /** JUnit classname; the enclosing suites (or file) for TAP and JSON reports. */
  classname: string;
  status: CaseStatus;
  /** The failure or error message, first line(s); null when the case did not fail. */
  message: string | null;
  /** Seconds. */
  time: number;
  /** The report itself says the case failed and then passed on a rerun (surefire `flakyFailure`). */
  rerunFlaky: boolean;
}

export interface Totals {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  /** Seconds, as the reports state them. */
  time: number;
}

/** What one report file holds. */
export interface ParsedReport {
  cases: TestCase[];
  /** The run's own duration when the report states it; otherwise the cases' times are summed. */
  time: number | null;
}

/** The identity of a test across reports: the same class and name is the same test. */
export function caseId(testCase: Pick<TestCase, 'name' | 'classname'>): string {
  return testCase.classname === '' ? testCase.name : `${testCase.classname} > ${testCase.name}`;
}

/** The totals of a report's cases, counted as every report format is (SDK), with the time under the lane's name. */
export function totalsOf(cases: TestCase[], time: number | null): Totals {
  const { seconds, ...counts } = totalsOfCases(cases.map((c) => ({ status: c.status, seconds: c.time })), time);
  return { ...counts, time: seconds };
}
