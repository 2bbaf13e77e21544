import { shortMessage } from './report-message.js';

/** `# SKIP` (also "skipped", "skipping") or `# TODO` after a test point, with its reason. */
export interface TapDirective {
  kind: 'skip' | 'todo';
  reason: string | null;
}

/** What a test point's YAML diagnostic block says, where producers agree on the keys. */
export interface TapDiagnostics {
  /** `error:` or `message:` (the first given), block scalars included, shortened. */
  message: string | null;
  durationMs: number | null;
  /** The file of node:test's `location: '<file>:<line>:<column>'`, as printed. */
  location: string | null;
}

/** One `ok` / `not ok` line. */
export interface TapTestPoint {
  ok: boolean;
  number: number | null;
  /** The description without its directive; "" when the producer wrote none. */
  description: string;
  directive: TapDirective | null;
  /** 0 at the top; a subtest is indented four spaces deeper than its parent. */
  depth: number;
  /** The names of the enclosing subtests (`# Subtest: <name>`), outermost first. */
  parents: string[];
  /** Test points reported directly under this one: with any, it is the suite that groups them. */
  children: number;
  /** Of those, the failing ones. */
  failingChildren: number;
  diagnostics: TapDiagnostics;
  /** 1-based line of the point in the text. */
  line: number;
}

/** node:test's closing comments (`# pass 3`, …), each summed over every run in the text; null when absent. */
export interface NodeTestSummary {
  tests: number | null;
  suites: number | null;
  pass: number | null;
  fail: number | null;
  cancelled: number | null;
  skipped: number | null;
  todo: number | null;
  durationMs: number | null;
}

export interface TapDocument {
  /** From `TAP version N`; null when the text has no version line. */
  version: number | null;
  /** The first top-level plan `1..N` (`1..0 # reason` skips the whole file); null without one. */
  plan: { count: number; skipReason: string | null } | null;
  testPoints: TapTestPoint[];
  /** `Bail out!`: the producer gave up, so the points seen are not the whole run. */
  bailOut: { reason: string | null; line: number } | null;
  summary: NodeTestSummary;
}

const INDENT_PER_LEVEL = 4;
const VERSION = /^TAP version (\d+)\s*$/;
const PLAN = /^(\s*)1\.\.(\d+)\s*(?:#\s*(.*?))?\s*$/;
const BAIL_OUT = /^\s*Bail out!\s*(.*?)\s*$/;
const SUBTEST = /^(\s*)# Subtest: (.*?)\s*$/;
const TEST_POINT = /^(\s*)(not ok|ok)\b\s*(\d*)\s*(?:-\s*)?(.*?)\s*$/;
// A directive follows whitespace (or opens the description); an escaped "\#" stays text.
const DIRECTIVE = /(?:^|\s)#\s*(skip\S*|todo)\b\s*(.*?)\s*$/i;
const SUMMARY = /^# (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) ([\d.]+)\s*$/;
const SUMMARY_FIELDS: Record<string, keyof NodeTestSummary> = {
  tests: 'tests',
  suites: 'suites',
  pass: 'pass',
  fail: 'fail',
  cancelled: 'cancelled',
  skipped: 'skipped',
  todo: 'todo',
  duration_ms: 'durationMs',
};

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

function unquote(value: string): string {
  return value.replace(/^'(.*)'$/, '$1').replace(/^"(.*)"$/, '$1');
}

/** The text of a YAML block scalar (`error: |-`): the following lines deeper than its key. */
function blockScalar(lines: readonly string[], keyLine: number, end: number): string {
  const keyIndent = indentOf(lines[keyLine]!);
  const body: string[] = [];
  for (let i = keyLine + 1; i < end; i += 1) {
    const line = lines[i]!;
    if (line.trim() !== '' && indentOf(line) <= keyIndent) break;
    body.push(line.trim());
  }
  return body.join('\n');
}

/**
 * The YAML block right after a test point: `---` indented deeper than the point, up to `...`
 * (or to the first line back at the point's indent, when a producer forgot the end marker).
 * Answers what it says and the index of the first line after it.
 */
function diagnosticsAfter(lines: readonly string[], pointLine: number, pointIndent: number): { diagnostics: TapDiagnostics; next: number } {
  const diagnostics: TapDiagnostics = { message: null, durationMs: null, location: null };
  const first = lines[pointLine + 1];
  if (first === undefined || first.trim() !== '---' || indentOf(first) <= pointIndent) return { diagnostics, next: pointLine + 1 };
  let end = pointLine + 2;
  while (end < lines.length) {
    const line = lines[end]!;
    if (line.trim() === '...') break;
    if (line.trim() !== '' && indentOf(line) <= pointIndent) break;
    end += 1;
  }
  for (let i = pointLine + 2; i < end; i += 1) {
    const field = /^\s*(error|message|duration_ms|location):\s*(.*?)\s*$/.exec(lines[i]!);
    if (!field) continue;
    const value = unquote(field[2]!);
    if (field[1] === 'duration_ms') diagnostics.durationMs = Number.isFinite(Number(value)) ? Number(value) : null;
    else if (field[1] === 'location') diagnostics.location = /^(.+?):\d+:\d+$/.exec(value)?.[1] ?? (value || null);
    else if (diagnostics.message === null) diagnostics.message = shortMessage(/^[|>][-+]?$/.test(value) ? blockScalar(lines, i, end) : value);
  }
  const closed = end < lines.length && lines[end]!.trim() === '...';
  return { diagnostics, next: closed ? end + 1 : end };
}

function directiveOf(rest: string): { description: string; directive: TapDirective | null } {
  const match = DIRECTIVE.exec(rest);
  if (!match) return { description: rest.trim(), directive: null };
  const kind = match[1]!.toLowerCase().startsWith('skip') ? 'skip' : 'todo';
  return { description: rest.slice(0, match.index).trim(), directive: { kind, reason: match[2] || null } };
}

/**
 * Reads TAP (versions 12 to 14, and node:test's reporter) out of any text: lines that are not TAP
 * (a runner's banner, npm's own output) are passed by, and so are YAML diagnostic blocks, so a
 * `ok:` key inside one is not taken for a test. Nesting follows node:test and TAP 14: a subtest's
 * lines are indented four spaces per level and announced by `# Subtest: <name>`.
 */
export function parseTap(text: string): TapDocument {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const document: TapDocument = {
    version: null,
    plan: null,
    testPoints: [],
    bailOut: null,
    summary: { tests: null, suites: null, pass: null, fail: null, cancelled: null, skipped: null, todo: null, durationMs: null },
  };
  const parents: string[] = [];
  const children: number[] = [];
  const failingChildren: number[] = [];

  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const point = TEST_POINT.exec(line);
    if (point) {
      const depth = Math.floor(point[1]!.length / INDENT_PER_LEVEL);
      const { description, directive } = directiveOf(point[4]!);
      const { diagnostics, next } = diagnosticsAfter(lines, i, point[1]!.length);
      const ok = point[2] === 'ok';
      document.testPoints.push({
        ok,
        number: point[3] ? Number(point[3]) : null,
        description,
        directive,
        depth,
        parents: parents.slice(0, depth).filter((name) => name !== undefined && name !== ''),
        children: children[depth + 1] ?? 0,
        failingChildren: failingChildren[depth + 1] ?? 0,
        diagnostics,
        line: i + 1,
      });
      children[depth + 1] = 0;
      failingChildren[depth + 1] = 0;
      children[depth] = (children[depth] ?? 0) + 1;
      if (!ok && directive === null) failingChildren[depth] = (failingChildren[depth] ?? 0) + 1;
      i = next;
      continue;
    }
    const subtest = SUBTEST.exec(line);
    if (subtest) {
      const depth = Math.floor(subtest[1]!.length / INDENT_PER_LEVEL);
      parents.length = depth;
      parents[depth] = subtest[2]!;
      children[depth + 1] = 0;
      failingChildren[depth + 1] = 0;
    } else if (VERSION.test(line)) {
      document.version ??= Number(VERSION.exec(line)![1]);
    } else if (PLAN.test(line)) {
      const plan = PLAN.exec(line)!;
      if (document.plan === null && plan[1]!.length < INDENT_PER_LEVEL) document.plan = { count: Number(plan[2]), skipReason: plan[3] || null };
    } else if (BAIL_OUT.test(line)) {
      document.bailOut ??= { reason: BAIL_OUT.exec(line)![1] || null, line: i + 1 };
    } else {
      const summary = SUMMARY.exec(line);
      if (summary) {
        const field = SUMMARY_FIELDS[summary[1]!]!;
        document.summary[field] = (document.summary[field] ?? 0) + Number(summary[2]);
      }
    }
    i += 1;
  }
  return document;
}

/** A test point fails when it is `not ok` without a directive: TAP counts neither a skipped nor a TODO test as failed. */
export function isFailingPoint(point: TapTestPoint): boolean {
  return !point.ok && point.directive === null;
}
