import { sumMatches, uniqueFailures, type FailedTest, type TestSummary } from './test-summary.js';

/**
 * node:test's spec reporter (the default on a terminal, or `--test-reporter=spec`): the `ℹ pass N`
 * lines, and the names under the closing "✖ failing tests:" recap, where each failure is
 * `test at <file>:<line>:<col>` followed by `✖ <name> (<duration>)`.
 */
export function parseNodeSpec(text: string): TestSummary | null {
  const passed = sumMatches(text, /^ℹ pass (\d+)\s*$/gm);
  const failed = sumMatches(text, /^ℹ fail (\d+)\s*$/gm);
  if (passed === null || failed === null) return null;
  const failures: FailedTest[] = [];
  for (const recap of text.split(/^✖ failing tests:\s*$/m).slice(1)) {
    for (const match of recap.matchAll(/^test at (.+?):\d+:\d+\s*\n✖ (.+?)(?: \([\d.]+m?s\))?\s*$/gm)) {
      failures.push({ name: match[2]!.trim(), file: match[1]!.trim() });
    }
  }
  return {
    runner: 'node-test',
    passed,
    failed: failed + (sumMatches(text, /^ℹ cancelled (\d+)\s*$/gm) ?? 0),
    skipped: (sumMatches(text, /^ℹ skipped (\d+)\s*$/gm) ?? 0) + (sumMatches(text, /^ℹ todo (\d+)\s*$/gm) ?? 0),
    failures: uniqueFailures(failures),
  };
}
