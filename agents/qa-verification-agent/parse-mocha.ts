import { sumMatches, uniqueFailures, type FailedTest, type TestSummary } from './test-summary.js';

/**
 * The failing tests of Mocha's closing section: each begins `  N) <outer suite>` and its title
 * continues on deeper-indented lines until the one ending with `:` (the test itself).
 */
function mochaFailures(text: string): FailedTest[] {
  const failures: FailedTest[] = [];
  const lines = text.split('\n');
  const start = lines.findIndex((line) => /^\s*\d+ failing\s*$/.test(line));
  if (start === -1) return failures;
  for (let i = start + 1; i < lines.length; i += 1) {
    const head = /^\s*\d+\) (.+?)\s*$/.exec(lines[i]!);
    if (!head) continue;
    const parts = [head[1]!];
    let j = i;
    while (!parts[parts.length - 1]!.endsWith(':') && j + 1 < lines.length && lines[j + 1]!.trim() !== '') {
      j += 1;
      parts.push(lines[j]!.trim());
    }
    parts[parts.length - 1] = parts[parts.length - 1]!.replace(/:$/, '');
    failures.push({ name: parts.join(' > '), file: null });
    i = j;
  }
  return failures;
}

/** Mocha's spec reporter: `N passing (time)`, `N failing`, `N pending`. */
export function parseMocha(text: string): TestSummary | null {
  const passed = sumMatches(text, /^\s*(\d+) passing\b/gm);
  if (passed === null) return null;
  return {
    runner: 'mocha',
    passed,
    failed: sumMatches(text, /^\s*(\d+) failing\s*$/gm) ?? 0,
    skipped: sumMatches(text, /^\s*(\d+) pending\s*$/gm) ?? 0,
    failures: uniqueFailures(mochaFailures(text)),
  };
}
