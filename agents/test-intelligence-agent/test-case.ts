/** The report formats the lane reads. */
export type ReportFormat = 'junit' | 'tap' | 'json';

export type CaseStatus = 'passed' | 'failed' | 'error' | 'skipped';

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

/** Messages are evidence, not logs: the first lines, bounded. */
export function shortMessage(text: string | null | undefined, maxChars = 500): string | null {
  if (text === null || text === undefined) return null;
  const trimmed = text.replace(/\r\n?/g, '\n').trim();
  if (trimmed === '') return null;
  const lines = trimmed.split('\n').slice(0, 5).join('\n');
  return lines.length > maxChars ? `${lines.slice(0, maxChars - 1)}…` : lines;
}

export function totalsOf(cases: TestCase[], time: number | null): Totals {
  const totals: Totals = { tests: cases.length, failures: 0, errors: 0, skipped: 0, time: 0 };
  for (const testCase of cases) {
    if (testCase.status === 'failed') totals.failures += 1;
    else if (testCase.status === 'error') totals.errors += 1;
    else if (testCase.status === 'skipped') totals.skipped += 1;
    totals.time += testCase.time;
  }
  if (time !== null) totals.time = time;
  totals.time = Math.round(totals.time * 1000) / 1000;
  return totals;
}
