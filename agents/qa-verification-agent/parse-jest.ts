import { uniqueFailures, type FailedTest, type TestSummary } from './test-summary.js';

/** `Tests:       2 failed, 1 skipped, 1 todo, 14 passed, 18 total` */
const JEST_TESTS_LINE = /^Tests:\s+(.*\d+ total)\s*$/gm;

function countOf(line: string, word: string): number {
  const match = new RegExp(`(\\d+) ${word}\\b`).exec(line);
  return match ? Number(match[1]) : 0;
}

/**
 * Jest's closing `Tests:` line, and the failing tests from its `● Suite › test` headings, each
 * under the ` FAIL  <file>` line of its file. "Test suite failed to run" is kept: a file that
 * cannot load is a failure an operator must see even though Jest counts no test in it.
 */
export function parseJest(text: string): TestSummary | null {
  const lines = [...text.matchAll(JEST_TESTS_LINE)].map((match) => match[1]!);
  if (lines.length === 0) return null;
  const failures: FailedTest[] = [];
  let file: string | null = null;
  for (const line of text.split('\n')) {
    const header = /^\s*(PASS|FAIL)\s+(\S.*?)\s*(?:\([\d.]+\s*m?s\))?\s*$/.exec(line);
    if (header) {
      file = header[2]!;
      continue;
    }
    const bullet = /^\s+● (.+?)\s*$/.exec(line);
    if (bullet) failures.push({ name: bullet[1]!.replace(/ › /g, ' > '), file });
  }
  return {
    runner: 'jest',
    passed: lines.reduce((sum, line) => sum + countOf(line, 'passed'), 0),
    failed: lines.reduce((sum, line) => sum + countOf(line, 'failed'), 0),
    skipped: lines.reduce((sum, line) => sum + countOf(line, 'skipped') + countOf(line, 'todo'), 0),
    failures: uniqueFailures(failures),
  };
}
