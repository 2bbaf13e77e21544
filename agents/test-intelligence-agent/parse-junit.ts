import { parseJunitXml } from '../../src/worker-sdk/junit-report.js';
import type { ParsedReport } from './test-case.js';

/**
 * A JUnit XML report as the lane's test cases: a case without a classname is named after its
 * suite, so tests from different suites stay apart. Throws on text that is not well-formed
 * JUnit XML; the message says which.
 */
export function parseJunit(xml: string): ParsedReport {
  const read = parseJunitXml(xml);
  if (!read.ok) throw new Error(read.reason);
  return {
    cases: read.report.cases.map((c) => ({
      name: c.name,
      classname: c.className ?? c.suite,
      status: c.status,
      message: c.message,
      time: c.seconds,
      rerunFlaky: c.rerunFlaky,
    })),
    time: read.report.statedSeconds,
  };
}
