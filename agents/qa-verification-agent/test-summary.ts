/** The runners whose summaries the lane can read. */
export type RunnerName = 'node-test' | 'tap' | 'jest' | 'vitest' | 'mocha';

/** One failing test as the runner named it. */
export interface FailedTest {
  /** The test's full title, suites first ("division > rounds down"). */
  name: string;
  /** The test file when the runner says which one, as the runner printed it. */
  file: string | null;
  /** Why it failed, where the runner says so per test (TAP's `error:`/`message:` diagnostic), shortened. */
  message?: string;
}

/** What a runner's own summary says about one suite run. */
export interface TestSummary {
  runner: RunnerName;
  passed: number;
  failed: number;
  skipped: number;
  failures: FailedTest[];
}

/** Runner output carries colour codes even when piped (vitest, jest with FORCE_COLOR); parsing reads plain text. */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
}

/** The sum of the first capture of every match; runners print one summary per run, a script may chain several. */
export function sumMatches(text: string, pattern: RegExp): number | null {
  let total: number | null = null;
  for (const match of text.matchAll(pattern)) total = (total ?? 0) + Number(match[1]);
  return total;
}

/** Keeps the first occurrence of each failure: runners repeat failures in a closing recap. */
export function uniqueFailures(failures: FailedTest[]): FailedTest[] {
  const seen = new Set<string>();
  return failures.filter((failure) => {
    const key = `${failure.file ?? ''}\u0000${failure.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
