export interface TestCounts {
  passed: number | null;
  failed: number | null;
}

/**
 * Summary lines of the common runners, each giving one count. The last match wins because
 * runners print their summary at the end (watch-mode reruns and nested projects print more
 * than one).
 */
const PASSED_PATTERNS = [
  /^\s*Tests:?\s+.*?\b(\d+) passed\b/gm, // Vitest "Tests  2 passed (2)", Jest "Tests: 1 failed, 2 passed, 3 total"
  /^\s*(?:#|ℹ) pass (\d+)\s*$/gm, // node:test (TAP and spec reporters)
  /^\s*(\d+) passing\b/gm, // Mocha
];
const FAILED_PATTERNS = [
  /^\s*Tests:?\s+.*?\b(\d+) failed\b/gm,
  /^\s*(?:#|ℹ) fail (\d+)\s*$/gm,
  /^\s*(\d+) failing\b/gm,
];

function lastCount(output: string, patterns: RegExp[]): number | null {
  let found: { at: number; count: number } | null = null;
  for (const pattern of patterns) {
    for (const match of output.matchAll(pattern)) {
      if (found === null || match.index >= found.at) found = { at: match.index, count: Number(match[1]) };
    }
  }
  return found?.count ?? null;
}

/**
 * Test counts from a runner's output, null for a count the output does not state. A summary
 * that names only passes (Vitest and Mocha omit a zero failure count) means none failed.
 */
export function parseTestCounts(output: string): TestCounts {
  const passed = lastCount(output, PASSED_PATTERNS);
  const failed = lastCount(output, FAILED_PATTERNS);
  return { passed, failed: failed ?? (passed !== null ? 0 : null) };
}
