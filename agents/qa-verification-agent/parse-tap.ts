import { isFailingPoint, parseTap, type TapDocument } from '../../src/worker-sdk/tap.js';
import { uniqueFailures, type FailedTest, type TestSummary } from './test-summary.js';

function failuresOf(tap: TapDocument): FailedTest[] {
  const failures = tap.testPoints
    // A suite reported `not ok` because a subtest failed is not a failure of its own.
    .filter((point) => isFailingPoint(point) && point.failingChildren === 0)
    .map((point) => ({
      name: [...point.parents, point.description].filter((part) => part !== '').join(' > '),
      file: point.diagnostics.location,
      ...(point.diagnostics.message ? { message: point.diagnostics.message } : {}),
    }));
  return uniqueFailures(failures);
}

/**
 * Failing TAP cases, leaves only: a suite reported `not ok` because one of its subtests failed
 * is not a failure of its own, so a `not ok` whose children already failed is dropped. Names
 * carry their enclosing subtests ("division > rounds down"). `not ok … # TODO` (or `# SKIP`) is
 * not a failure in TAP.
 */
export function tapFailures(text: string): FailedTest[] {
  return failuresOf(parseTap(text));
}

/**
 * node:test's TAP reporter (the default when output is not a terminal): the closing
 * `# pass N` / `# fail N` / `# skipped N` comments. Cancelled tests (timeouts, aborted files)
 * count as failed; todo tests count as skipped because they neither pass nor fail.
 */
export function parseNodeTap(text: string): TestSummary | null {
  const tap = parseTap(text);
  const { pass, fail, cancelled, skipped, todo } = tap.summary;
  if (pass === null || fail === null) return null;
  return { runner: 'node-test', passed: pass, failed: fail + (cancelled ?? 0), skipped: (skipped ?? 0) + (todo ?? 0), failures: failuresOf(tap) };
}

/**
 * Any other TAP producer (tape, tap) without node's summary comments: count the top-level test
 * points, reading `# SKIP` and `# TODO` directives as skipped. A `Bail out!` counts as one more
 * failure: the producer stopped, so the tests after it never ran.
 */
export function parsePlainTap(text: string): TestSummary | null {
  const tap = parseTap(text);
  if (tap.version === null && tap.plan === null) return null;
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const point of tap.testPoints.filter((p) => p.depth === 0)) {
    if (point.directive !== null) skipped += 1;
    else if (point.ok) passed += 1;
    else failed += 1;
  }
  const failures = failuresOf(tap);
  if (tap.bailOut !== null) {
    failed += 1;
    failures.push({ name: `Bail out!${tap.bailOut.reason ? ` ${tap.bailOut.reason}` : ''}`, file: null });
  }
  if (passed + failed + skipped === 0) return null;
  return { runner: 'tap', passed, failed, skipped, failures };
}
