import { sumMatches, uniqueFailures, type FailedTest, type TestSummary } from './test-summary.js';

const TAP_RESULT = /^(\s*)(not ok|ok)\b\s*\d*\s*(?:-\s*)?(.*)$/;
const TAP_SUBTEST = /^(\s*)# Subtest: (.*)$/;
const TAP_DIRECTIVE = /\s+#\s*(SKIP|TODO)\b.*$/i;
/** node:test nests a subtest four spaces deeper than its parent. */
const INDENT_PER_LEVEL = 4;

/** The file of a failing node:test case, from the `location:` line of its YAML diagnostic block. */
function locationAfter(lines: string[], from: number, indent: number): string | null {
  for (let i = from + 1; i < lines.length; i += 1) {
    const line = lines[i]!;
    const lineIndent = line.length - line.trimStart().length;
    if (line.trim() !== '' && lineIndent <= indent) return null;
    const match = /^\s*location:\s*'(.+?):\d+:\d+'\s*$/.exec(line);
    if (match) return match[1]!;
    if (/^\s*\.\.\.\s*$/.test(line)) return null;
  }
  return null;
}

/**
 * Failing TAP cases, leaves only: a suite reported `not ok` because one of its subtests failed
 * is not a failure of its own, so a `not ok` whose children already failed is dropped. Names
 * carry their enclosing subtests ("division > rounds down"). `not ok … # TODO` is not a failure
 * in TAP.
 */
export function tapFailures(text: string): FailedTest[] {
  const lines = text.split('\n');
  const openSubtests: string[] = [];
  const childFailed: boolean[] = [];
  const failures: FailedTest[] = [];
  lines.forEach((line, index) => {
    const subtest = TAP_SUBTEST.exec(line);
    if (subtest) {
      const level = Math.floor(subtest[1]!.length / INDENT_PER_LEVEL);
      openSubtests.length = level;
      openSubtests[level] = subtest[2]!.trim();
      childFailed[level + 1] = false;
      return;
    }
    const result = TAP_RESULT.exec(line);
    if (!result) return;
    const level = Math.floor(result[1]!.length / INDENT_PER_LEVEL);
    const hadFailingChild = childFailed[level + 1] === true;
    childFailed[level + 1] = false;
    const directive = TAP_DIRECTIVE.exec(result[3]!);
    if (result[2] !== 'not ok' || directive?.[1]!.toUpperCase() === 'TODO') return;
    childFailed[level] = true;
    if (hadFailingChild) return;
    const title = result[3]!.replace(TAP_DIRECTIVE, '').trim();
    const name = [...openSubtests.slice(0, level), title].filter((part) => part !== '').join(' > ');
    failures.push({ name, file: locationAfter(lines, index, result[1]!.length) });
  });
  return uniqueFailures(failures);
}

/**
 * node:test's TAP reporter (the default when output is not a terminal): the closing
 * `# pass N` / `# fail N` / `# skipped N` comments. Cancelled tests (timeouts, aborted files)
 * count as failed; todo tests count as skipped because they neither pass nor fail.
 */
export function parseNodeTap(text: string): TestSummary | null {
  const passed = sumMatches(text, /^# pass (\d+)\s*$/gm);
  const failed = sumMatches(text, /^# fail (\d+)\s*$/gm);
  if (passed === null || failed === null) return null;
  return {
    runner: 'node-test',
    passed,
    failed: failed + (sumMatches(text, /^# cancelled (\d+)\s*$/gm) ?? 0),
    skipped: (sumMatches(text, /^# skipped (\d+)\s*$/gm) ?? 0) + (sumMatches(text, /^# todo (\d+)\s*$/gm) ?? 0),
    failures: tapFailures(text),
  };
}

/**
 * Any other TAP producer (tape, tap) without node's summary comments: count the top-level
 * `ok` / `not ok` lines, reading `# SKIP` and `# TODO` directives as skipped.
 */
export function parsePlainTap(text: string): TestSummary | null {
  if (!/^TAP version \d+|^1\.\.\d+/m.test(text)) return null;
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const line of text.split('\n')) {
    const match = /^(not ok|ok)\b(.*)$/.exec(line);
    if (!match) continue;
    if (TAP_DIRECTIVE.test(match[2]!)) skipped += 1;
    else if (match[1] === 'ok') passed += 1;
    else failed += 1;
  }
  if (passed + failed + skipped === 0) return null;
  return { runner: 'tap', passed, failed, skipped, failures: tapFailures(text) };
}
