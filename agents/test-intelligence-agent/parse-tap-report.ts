import { parseTap } from '../../src/worker-sdk/tap.js';
import type { ParsedReport, TestCase } from './test-case.js';

/**
 * A TAP report: every test point that is a test rather than a suite (a point with points nested
 * under it is the suite grouping them). Nested tests carry their enclosing subtests in
 * `classname`. `# SKIP` and `# TODO` count as skipped (TAP does not count a TODO failure as a
 * failure). A `Bail out!` is an error of its own: the tests after it never ran.
 */
export function parseTapReport(text: string): ParsedReport {
  const tap = parseTap(text);
  if (tap.testPoints.length === 0 && tap.bailOut === null) throw new Error('no TAP test lines (ok / not ok)');
  const cases: TestCase[] = [];
  for (const point of tap.testPoints) {
    if (point.children > 0) continue;
    const failed = !point.ok && point.directive === null;
    cases.push({
      name: point.description || `test ${cases.length + 1}`,
      classname: point.parents.join(' > '),
      status: point.directive !== null ? 'skipped' : failed ? 'failed' : 'passed',
      message: failed ? point.diagnostics.message : null,
      time: (point.diagnostics.durationMs ?? 0) / 1000,
      rerunFlaky: false,
    });
  }
  if (tap.bailOut !== null) {
    cases.push({ name: 'Bail out!', classname: '', status: 'error', message: tap.bailOut.reason ?? 'the producer bailed out', time: 0, rerunFlaky: false });
  }
  return { cases, time: tap.summary.durationMs === null ? null : tap.summary.durationMs / 1000 };
}
