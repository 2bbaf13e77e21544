import { shortMessage, type ParsedReport, type TestCase } from './test-case.js';

const RESULT = /^(\s*)(not ok|ok)\b\s*\d*\s*(?:-\s*)?(.*?)\s*$/;
const SUBTEST = /^(\s*)# Subtest: (.*?)\s*$/;
const DIRECTIVE = /\s*#\s*(SKIP|TODO)\b.*$/i;
/** node:test and most TAP 14 producers nest a subtest four spaces deeper. */
const INDENT_PER_LEVEL = 4;

/** The diagnostic YAML block after a result line: its `error:`/`message:` and `duration_ms:`. */
function diagnostics(lines: string[], from: number, indent: number): { message: string | null; seconds: number } {
  let message: string | null = null;
  let seconds = 0;
  for (let i = from + 1; i < lines.length; i += 1) {
    const line = lines[i]!;
    const lineIndent = line.length - line.trimStart().length;
    if (line.trim() !== '' && lineIndent <= indent && !/^\s*---\s*$/.test(line)) break;
    if (/^\s*\.\.\.\s*$/.test(line)) break;
    const field = /^\s*(error|message|duration_ms):\s*(.*)$/.exec(line);
    if (!field) continue;
    const value = field[2]!.replace(/^'(.*)'$/, '$1').replace(/^"(.*)"$/, '$1');
    if (field[1] === 'duration_ms') seconds = (Number(value) || 0) / 1000;
    else if (message === null) {
      // A block scalar (`error: |-`) carries its text on the following, deeper lines.
      message = /^[|>][-+]?$/.test(value) ? shortMessage(lines.slice(i + 1, i + 4).map((l) => l.trim()).join('\n')) : shortMessage(value);
    }
  }
  return { message, seconds };
}

/**
 * A TAP report: every `ok` / `not ok` line that is a test rather than a suite. A result line
 * with results nested under it is the suite that groups them, not a test of its own. Names of
 * nested tests go in `classname` as their enclosing subtests. `# SKIP` and `# TODO` count as
 * skipped (TAP does not count a TODO failure as a failure).
 */
export function parseTapReport(text: string): ParsedReport {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  if (!lines.some((line) => RESULT.test(line))) throw new Error('no TAP test lines (ok / not ok)');
  const open: string[] = [];
  const childResults: number[] = [];
  const cases: TestCase[] = [];
  lines.forEach((line, index) => {
    const subtest = SUBTEST.exec(line);
    if (subtest) {
      const level = Math.floor(subtest[1]!.length / INDENT_PER_LEVEL);
      open.length = level;
      open[level] = subtest[2]!;
      childResults[level + 1] = 0;
      return;
    }
    const result = RESULT.exec(line);
    if (!result) return;
    const level = Math.floor(result[1]!.length / INDENT_PER_LEVEL);
    const isSuite = (childResults[level + 1] ?? 0) > 0;
    childResults[level + 1] = 0;
    childResults[level] = (childResults[level] ?? 0) + 1;
    if (isSuite) return;
    const directive = DIRECTIVE.exec(result[3]!)?.[1]?.toUpperCase();
    const failed = result[2] === 'not ok' && directive === undefined;
    const { message, seconds } = diagnostics(lines, index, result[1]!.length);
    cases.push({
      name: result[3]!.replace(DIRECTIVE, '').trim() || `test ${cases.length + 1}`,
      classname: open.slice(0, level).join(' > '),
      status: directive !== undefined ? 'skipped' : failed ? 'failed' : 'passed',
      message: failed ? message : null,
      time: seconds,
      rerunFlaky: false,
    });
  });
  const duration = /^# duration_ms ([\d.]+)\s*$/m.exec(text);
  return { cases, time: duration ? Number(duration[1]) / 1000 : null };
}
