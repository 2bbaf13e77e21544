import { uniqueFailures, type FailedTest, type TestSummary } from './test-summary.js';

/** `      Tests  2 failed | 2 passed | 1 skipped | 1 todo (6)` */
const VITEST_TESTS_LINE = /^\s*Tests\s{2,}(.*?)\s*\(\d+\)\s*$/gm;

function countOf(line: string, word: string): number {
  const match = new RegExp(`(\\d+) ${word}\\b`).exec(line);
  return match ? Number(match[1]) : 0;
}

/**
 * Vitest's closing `Tests` line and the ` FAIL  <file> > <suite> > <test>` headings of its
 * "Failed Tests" section. A heading without ` > ` is a file that failed to load (no test in it ran).
 */
export function parseVitest(text: string): TestSummary | null {
  const lines = [...text.matchAll(VITEST_TESTS_LINE)].map((match) => match[1]!);
  if (lines.length === 0) return null;
  const failures: FailedTest[] = [];
  for (const match of text.matchAll(/^\s*FAIL\s+(.+?)\s*$/gm)) {
    const [file, ...titles] = match[1]!.split(' > ');
    failures.push({ name: titles.length > 0 ? titles.join(' > ') : `${file} (file failed to load)`, file: file! });
  }
  return {
    runner: 'vitest',
    passed: lines.reduce((sum, line) => sum + countOf(line, 'passed'), 0),
    failed: lines.reduce((sum, line) => sum + countOf(line, 'failed'), 0),
    skipped: lines.reduce((sum, line) => sum + countOf(line, 'skipped') + countOf(line, 'todo'), 0),
    failures: uniqueFailures(failures),
  };
}
