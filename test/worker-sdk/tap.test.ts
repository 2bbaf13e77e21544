import { describe, expect, it } from 'vitest';
import { isFailingPoint, parseTap } from '../../src/worker-sdk/tap.js';

/** node:test's TAP reporter: a suite with a failing subtest, a skip, a todo and the closing counts. */
const NODE_TEST = [
  'TAP version 13',
  '# Subtest: division',
  '    # Subtest: divides evenly',
  '    ok 1 - divides evenly',
  '      ---',
  '      duration_ms: 0.5',
  '      ...',
  '    # Subtest: rounds down',
  '    not ok 2 - rounds down',
  '      ---',
  '      duration_ms: 2.5',
  "      location: '/ci/app/test/math.test.js:6:3'",
  '      error: |-',
  '        Expected values to be strictly equal:',
  '',
  '        3 !== 4',
  '      stack: |-',
  '        ok 1 - a stack line that looks like a test point',
  '      ...',
  '    1..2',
  'not ok 1 - division',
  '  ---',
  "  error: '1 subtest failed'",
  '  ...',
  'ok 2 - later # SKIP not yet',
  'not ok 3 - planned # TODO',
  '1..3',
  '# tests 4',
  '# suites 1',
  '# pass 1',
  '# fail 1',
  '# cancelled 0',
  '# skipped 1',
  '# todo 1',
  '# duration_ms 120.5',
].join('\n');

describe('parseTap', () => {
  it('reads the version, the top-level plan and every test point with its nesting', () => {
    const tap = parseTap(NODE_TEST);
    expect(tap.version).toBe(13);
    expect(tap.plan).toEqual({ count: 3, skipReason: null });
    expect(tap.testPoints.map((p) => [p.depth, p.parents.join(' > '), p.description, p.ok, p.children, p.failingChildren])).toEqual([
      [1, 'division', 'divides evenly', true, 0, 0],
      [1, 'division', 'rounds down', false, 0, 0],
      [0, '', 'division', false, 2, 1],
      [0, '', 'later', true, 0, 0],
      [0, '', 'planned', false, 0, 0],
    ]);
  });

  it('reads the YAML block: the message (block scalars too), the duration and the location, and no test points inside it', () => {
    const roundsDown = parseTap(NODE_TEST).testPoints[1]!;
    expect(roundsDown.diagnostics).toEqual({ message: 'Expected values to be strictly equal:\n\n3 !== 4', durationMs: 2.5, location: '/ci/app/test/math.test.js' });
    expect(roundsDown.line).toBe(9);
  });

  it('reads SKIP and TODO directives with their reasons; neither is a failure', () => {
    const [later, planned] = parseTap(NODE_TEST).testPoints.slice(3);
    expect(later!.directive).toEqual({ kind: 'skip', reason: 'not yet' });
    expect(planned!.directive).toEqual({ kind: 'todo', reason: null });
    expect(isFailingPoint(planned!)).toBe(false);
    const variants = parseTap(['ok 1 # skip', 'not ok 2 - flaky # SKIPPED: needs network', 'ok 3 - a # hash in the name', 'ok 4 - escaped \\# SKIP stays text'].join('\n'));
    expect(variants.testPoints.map((p) => [p.description, p.directive?.kind ?? null, isFailingPoint(p)])).toEqual([
      ['', 'skip', false],
      ['flaky', 'skip', false],
      ['a # hash in the name', null, false],
      ['escaped \\# SKIP stays text', null, false],
    ]);
  });

  it('sums node:test’s closing comments over every run in the text', () => {
    expect(parseTap(NODE_TEST).summary).toEqual({ tests: 4, suites: 1, pass: 1, fail: 1, cancelled: 0, skipped: 1, todo: 1, durationMs: 120.5 });
    expect(parseTap(`${NODE_TEST}\n${NODE_TEST}`).summary).toMatchObject({ pass: 2, fail: 2, durationMs: 241 });
    expect(parseTap('ok 1 - no summary here').summary.pass).toBeNull();
  });

  it('records a bail out and the points before it', () => {
    const tap = parseTap(['TAP version 14', '1..4', 'ok 1 - connects', 'Bail out! database unreachable', 'ok 2 - never printed'].join('\n'));
    expect(tap.bailOut).toEqual({ reason: 'database unreachable', line: 4 });
    expect(tap.testPoints.map((p) => p.number)).toEqual([1, 2]);
    expect(parseTap('Bail out!').bailOut).toEqual({ reason: null, line: 1 });
  });

  it('reads a plan that skips the whole file, tape output without dashes, and CRLF line ends', () => {
    expect(parseTap('1..0 # SKIP no database').plan).toEqual({ count: 0, skipReason: 'SKIP no database' });
    const tape = parseTap('TAP version 13\r\n# parser\r\nok 1 reads a header\r\nnot ok 2 reads a quoted field\r\n  ---\r\n    operator: equal\r\n  ...\r\n1..2\r\n');
    expect(tape.testPoints.map((p) => [p.number, p.description, p.ok])).toEqual([
      [1, 'reads a header', true],
      [2, 'reads a quoted field', false],
    ]);
  });

  it('passes by text that is not TAP', () => {
    const tap = parseTap('> app@1.0.0 test\n> node --test\n\nokay, nothing here\n');
    expect(tap).toMatchObject({ version: null, plan: null, testPoints: [], bailOut: null });
  });

  it('ends a YAML block that has no end marker at the next line back at the point’s indent', () => {
    const tap = parseTap(['not ok 1 - broken', '  ---', "  message: 'boom'", 'ok 2 - next'].join('\n'));
    expect(tap.testPoints.map((p) => [p.description, p.diagnostics.message])).toEqual([
      ['broken', 'boom'],
      ['next', null],
    ]);
  });
});
