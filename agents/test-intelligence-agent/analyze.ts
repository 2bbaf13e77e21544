import { caseId, type ReportFormat, type TestCase, type Totals } from './test-case.js';

/** One report as the lane read it. */
export interface ReadReportSummary {
  path: string;
  format: ReportFormat;
  cases: TestCase[];
  totals: Totals;
}

export interface FailureFinding {
  name: string;
  classname: string;
  /** "failure" is an assertion that did not hold; "error" is a test that broke (exception, setup). */
  kind: 'failure' | 'error';
  message: string | null;
  /** The report it comes from. */
  report: string;
}

export interface FlakyFinding {
  name: string;
  classname: string;
  passedIn: string[];
  failedIn: string[];
  /** The message of one failing occurrence. */
  message: string | null;
  /** Why it counts as flaky: it flips between reports, or a report records a failed-then-passed rerun. */
  evidence: 'flips-across-reports' | 'rerun-in-report';
}

export type Posture = 'ready' | 'watching' | 'blocked';

/** At or above this share of skipped tests, a green run says too little to be called ready. */
export const SKIPPED_SHARE_WATCH = 0.2;

export interface Analysis {
  totals: Totals;
  failures: FailureFinding[];
  flaky: FlakyFinding[];
  /** Tests that failed wherever they ran: never passed in any report. */
  consistentFailures: number;
  posture: Posture;
  postureReason: string;
}

function addTotals(into: Totals, add: Totals): void {
  into.tests += add.tests;
  into.failures += add.failures;
  into.errors += add.errors;
  into.skipped += add.skipped;
  into.time = Math.round((into.time + add.time) * 1000) / 1000;
}

interface Occurrences {
  name: string;
  classname: string;
  passedIn: Set<string>;
  failedIn: Set<string>;
  message: string | null;
  rerunIn: Set<string>;
}

/**
 * Combines the reports: totals, every failing case with its report, and flaky tests, i.e. tests
 * (same class and name) that passed in one report or run and failed in another, or that a report
 * itself records as failed-then-passed on rerun. The posture: blocked when a test failed wherever
 * it ran, watching when the only trouble is flakiness or a skipped-heavy or empty run, ready
 * when everything that ran passed.
 */
export function analyzeReports(reports: ReadReportSummary[]): Analysis {
  const totals: Totals = { tests: 0, failures: 0, errors: 0, skipped: 0, time: 0 };
  const failures: FailureFinding[] = [];
  const byId = new Map<string, Occurrences>();
  for (const report of reports) {
    addTotals(totals, report.totals);
    for (const testCase of report.cases) {
      const id = caseId(testCase);
      let seen = byId.get(id);
      if (!seen) {
        seen = { name: testCase.name, classname: testCase.classname, passedIn: new Set(), failedIn: new Set(), message: null, rerunIn: new Set() };
        byId.set(id, seen);
      }
      if (testCase.status === 'passed') seen.passedIn.add(report.path);
      if (testCase.rerunFlaky) seen.rerunIn.add(report.path);
      if (testCase.status === 'failed' || testCase.status === 'error') {
        seen.failedIn.add(report.path);
        seen.message ??= testCase.message;
        failures.push({
          name: testCase.name,
          classname: testCase.classname,
          kind: testCase.status === 'failed' ? 'failure' : 'error',
          message: testCase.message,
          report: report.path,
        });
      }
    }
  }

  const flaky: FlakyFinding[] = [];
  let consistentFailures = 0;
  for (const seen of byId.values()) {
    const flips = seen.passedIn.size > 0 && seen.failedIn.size > 0;
    if (seen.failedIn.size > 0 && seen.passedIn.size === 0) consistentFailures += 1;
    if (flips || seen.rerunIn.size > 0) {
      flaky.push({
        name: seen.name,
        classname: seen.classname,
        passedIn: [...seen.passedIn],
        failedIn: [...new Set([...seen.failedIn, ...seen.rerunIn])],
        message: seen.message,
        evidence: flips ? 'flips-across-reports' : 'rerun-in-report',
      });
    }
  }

  const skippedShare = totals.tests === 0 ? 0 : totals.skipped / totals.tests;
  let posture: Posture;
  let postureReason: string;
  if (consistentFailures > 0) {
    posture = 'blocked';
    postureReason = `${consistentFailures} test${consistentFailures === 1 ? '' : 's'} failed in every report that ran ${consistentFailures === 1 ? 'it' : 'them'}`;
  } else if (totals.tests === 0) {
    posture = 'watching';
    postureReason = 'the reports hold no test cases';
  } else if (flaky.length > 0) {
    posture = 'watching';
    postureReason = `no consistent failure, but ${flaky.length} flaky test${flaky.length === 1 ? '' : 's'}`;
  } else if (skippedShare >= SKIPPED_SHARE_WATCH) {
    posture = 'watching';
    postureReason = `everything that ran passed, but ${Math.round(skippedShare * 100)}% of the tests were skipped`;
  } else {
    posture = 'ready';
    postureReason = 'every test that ran passed';
  }
  return { totals, failures, flaky, consistentFailures, posture, postureReason };
}
