import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTestOutput } from '../../../agents/qa-verification-agent/parse-summary.js';
import { tapFailures } from '../../../agents/qa-verification-agent/parse-tap.js';

const OUTPUTS = join(import.meta.dirname, '..', '..', 'fixtures', 'lanes', 'qa-verification-agent', 'outputs');
const output = (name: string) => readFileSync(join(OUTPUTS, name), 'utf8');

describe('runner summaries', () => {
  it('reads node:test TAP counts, todo as skipped, and names the failing leaf with its suite and file', () => {
    expect(parseTestOutput(output('node-tap.txt'))).toEqual({
      runner: 'node-test',
      passed: 3,
      failed: 1,
      skipped: 2,
      failures: [{ name: 'division > rounds down', file: '/home/ci/projects/fixture/test/math.test.js', message: 'Expected values to be strictly equal:\n\n3 !== 4' }],
    });
  });

  it('reads the node:test spec reporter and its failing-tests recap', () => {
    expect(parseTestOutput(output('node-spec.txt'))).toEqual({
      runner: 'node-test',
      passed: 3,
      failed: 1,
      skipped: 2,
      failures: [{ name: 'rounds down', file: 'test/math.test.js' }],
    });
  });

  it('reads Jest’s Tests line and the ● headings under their FAIL file', () => {
    expect(parseTestOutput(output('jest.txt'))).toEqual({
      runner: 'jest',
      passed: 14,
      failed: 2,
      skipped: 2,
      failures: [
        { name: 'Cart > applies the discount code', file: 'src/cart/cart.test.js' },
        { name: 'Cart > checkout > refuses an empty cart', file: 'src/cart/cart.test.js' },
      ],
    });
  });

  it('reads Vitest output with its colour codes', () => {
    const text = output('vitest-color.txt');
    expect(text).toContain('\u001b[');
    expect(parseTestOutput(text)).toEqual({
      runner: 'vitest',
      passed: 2,
      failed: 2,
      skipped: 2,
      failures: [
        { name: 'math > subtracts', file: 'test/math.test.ts' },
        { name: 'splits', file: 'test/str.test.ts' },
      ],
    });
  });

  it('reads Mocha’s passing/pending/failing lines and joins multi-line failure titles', () => {
    expect(parseTestOutput(output('mocha.txt'))).toEqual({
      runner: 'mocha',
      passed: 4,
      failed: 2,
      skipped: 1,
      failures: [
        { name: 'Users API > POST /users > rejects a duplicate email', file: null },
        { name: 'Health > reports the database version', file: null },
      ],
    });
  });

  it('counts plain TAP (tape) from its ok / not ok lines', () => {
    const tape = [
      'TAP version 13',
      '# parser',
      'ok 1 reads a header',
      'not ok 2 reads a quoted field',
      '  ---',
      '    operator: equal',
      '  ...',
      'ok 3 streams rows # SKIP needs fixture',
      'not ok 4 handles BOM # TODO',
      '',
      '1..4',
      '# tests 4',
      '# ok',
    ].join('\n');
    expect(parseTestOutput(tape)).toEqual({
      runner: 'tap',
      passed: 1,
      failed: 1,
      skipped: 2,
      failures: [{ name: 'reads a quoted field', file: null }],
    });
  });

  it('adds up the summaries of a script that runs its runner twice', () => {
    const twice = `${output('node-tap.txt')}\n${output('node-tap.txt')}`;
    expect(parseTestOutput(twice)).toMatchObject({ passed: 6, failed: 2, skipped: 4 });
  });

  it('finds no summary in output that is not a test run', () => {
    expect(parseTestOutput('> app@1.0.0 test\n> echo "no tests yet"\n\nno tests yet\n')).toBeNull();
    expect(parseTestOutput('')).toBeNull();
  });
});

describe('tapFailures', () => {
  it('keeps a suite that failed on its own (no failing child) and drops suites whose child failed', () => {
    const tap = [
      '# Subtest: outer',
      '    # Subtest: inner',
      '        # Subtest: deepest',
      '        not ok 1 - deepest',
      '        1..1',
      '    not ok 1 - inner',
      '    1..1',
      'not ok 1 - outer',
      '# Subtest: hook suite',
      'not ok 2 - hook suite',
      '  ---',
      "  location: '/w/app/test/hooks.test.js:3:1'",
      "  error: 'before hook failed'",
      '  ...',
    ].join('\n');
    expect(tapFailures(tap)).toEqual([
      { name: 'outer > inner > deepest', file: null },
      { name: 'hook suite', file: '/w/app/test/hooks.test.js', message: 'before hook failed' },
    ]);
  });
});
