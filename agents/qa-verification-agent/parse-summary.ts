import { parseJest } from './parse-jest.js';
import { parseMocha } from './parse-mocha.js';
import { parseNodeSpec } from './parse-node-spec.js';
import { parseNodeTap, parsePlainTap } from './parse-tap.js';
import { parseVitest } from './parse-vitest.js';
import { stripAnsi, type TestSummary } from './test-summary.js';

/**
 * Tried in this order: each runner's closing summary is distinctive, and the TAP fallback comes
 * last because stray `ok` lines could appear in any output.
 */
const PARSERS = [parseJest, parseVitest, parseMocha, parseNodeTap, parseNodeSpec, parsePlainTap] as const;

/** The summary of the first runner whose closing lines the output contains, or null. */
export function parseTestOutput(output: string): TestSummary | null {
  const text = stripAnsi(output).replace(/\r\n?/g, '\n');
  for (const parse of PARSERS) {
    const summary = parse(text);
    if (summary) return summary;
  }
  return null;
}
