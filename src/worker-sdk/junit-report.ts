import { XMLValidator } from 'fast-xml-parser';
import { stringValuedXmlParser } from '../common/xml-parser.js';
import { totalsOfCases, type CaseStatus, type CaseTotals } from './case-totals.js';
import { shortMessage } from './report-message.js';

/** One `<testcase>` of a JUnit XML report. */
export interface JunitCase {
  name: string;
  /** Its `classname` attribute; null when the producer wrote none. */
  className: string | null;
  /** The name of the `<testsuite>` holding it; "" when the suite has none. */
  suite: string;
  /** `failed` is an assertion that did not hold (`<failure>`), `error` a test that broke (`<error>`). */
  status: CaseStatus;
  /** For a failed or errored case: the `message` attribute, else `type`, else the body, shortened. */
  message: string | null;
  seconds: number;
  /** The report records a failure and then a pass on rerun (surefire `flakyFailure`, `flakyError`). */
  rerunFlaky: boolean;
}

export interface JunitReport {
  cases: JunitCase[];
  /** Counted from the cases themselves: suites' count attributes are often stale or absent. */
  totals: CaseTotals;
  /** The failed and errored cases, in report order. */
  failing: JunitCase[];
  /** How many `<testsuite>` elements the report holds, nested ones included. */
  suites: number;
  /** The run's duration as the report states it (root `time`, else every top suite's), or null. */
  statedSeconds: number | null;
}

/** `malformed`: not well-formed XML; `not-junit`: XML without a `<testsuites>` or `<testsuite>` root. */
export type JunitReadProblem = 'malformed' | 'not-junit';

export type JunitRead = { ok: true; report: JunitReport } | { ok: false; problem: JunitReadProblem; reason: string };

// Names and messages stay strings; the elements JUnit may repeat are always lists.
const parser = stringValuedXmlParser({
  isArray: (name) => ['testsuite', 'testcase', 'failure', 'error', 'skipped', 'flakyFailure', 'flakyError', 'rerunFailure', 'rerunError'].includes(name),
});

type XmlNode = Record<string, unknown>;

function nodes(value: unknown): XmlNode[] {
  if (!Array.isArray(value)) return [];
  return value.map((item) => (typeof item === 'object' && item !== null ? (item as XmlNode) : { '#text': String(item ?? '') }));
}

function attr(node: XmlNode, name: string): string | null {
  const value = node[`@_${name}`];
  return typeof value === 'string' ? value : null;
}

/** JUnit times are seconds; some producers write thousands separators ("1,234.5"). */
function seconds(value: string | null): number {
  const parsed = Number((value ?? '').replace(/,/g, ''));
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : 0;
}

function messageOf(problem: XmlNode | undefined): string | null {
  if (!problem) return null;
  const body = typeof problem['#text'] === 'string' ? problem['#text'] : null;
  return shortMessage(attr(problem, 'message')) ?? shortMessage(attr(problem, 'type')) ?? shortMessage(body);
}

function caseOf(node: XmlNode, suite: string): JunitCase {
  const failure = nodes(node.failure)[0];
  const error = nodes(node.error)[0];
  const status: CaseStatus = failure ? 'failed' : error ? 'error' : node.skipped !== undefined ? 'skipped' : 'passed';
  const flaked = node.flakyFailure !== undefined || node.flakyError !== undefined;
  return {
    name: attr(node, 'name') ?? '(unnamed)',
    className: attr(node, 'classname'),
    suite,
    status,
    message: status === 'failed' || status === 'error' ? messageOf(failure ?? error) : null,
    seconds: seconds(attr(node, 'time')),
    rerunFlaky: status === 'passed' && flaked,
  };
}

/** Suites nest (JUnit 5, pytest, merged CI reports): every level's cases count. */
function collect(suite: XmlNode, into: { cases: JunitCase[]; suites: number }): void {
  into.suites += 1;
  const name = attr(suite, 'name') ?? '';
  for (const testCase of nodes(suite.testcase)) into.cases.push(caseOf(testCase, name));
  for (const child of nodes(suite.testsuite)) collect(child, into);
}

/**
 * Reads a JUnit XML report: a `<testsuites>` root of `<testsuite>`s, or a single `<testsuite>`
 * root (surefire). Text that is not well-formed XML, or XML of another kind, is answered as a
 * problem, never thrown, so a lane decides whether that is an error or a file to pass by.
 */
export function parseJunitXml(xml: string): JunitRead {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) return { ok: false, problem: 'malformed', reason: `not well-formed XML: ${valid.err.msg} (line ${valid.err.line})` };
  let doc: XmlNode;
  try {
    doc = parser.parse(xml) as XmlNode;
  } catch (err) {
    // The parser's own limits (nesting depth, entity expansion) refuse what the validator let by.
    return { ok: false, problem: 'malformed', reason: `not readable XML: ${(err as Error).message}` };
  }
  const root = doc.testsuites;
  if (root === undefined && doc.testsuite === undefined) return { ok: false, problem: 'not-junit', reason: 'no <testsuites> or <testsuite> root element' };
  const roots = root !== undefined ? nodes(Array.isArray(root) ? root : [root]) : [];
  const topSuites = root !== undefined ? roots.flatMap((r) => nodes(r.testsuite)) : nodes(doc.testsuite);
  const found = { cases: [] as JunitCase[], suites: 0 };
  for (const suite of topSuites) collect(suite, found);

  const rootTime = roots.length > 0 ? attr(roots[0]!, 'time') : null;
  const suiteTimes = topSuites.map((suite) => attr(suite, 'time'));
  const statedSeconds =
    rootTime !== null ? seconds(rootTime) : suiteTimes.length > 0 && suiteTimes.every((t) => t !== null) ? suiteTimes.reduce((sum, t) => sum + seconds(t), 0) : null;
  return {
    ok: true,
    report: {
      cases: found.cases,
      totals: totalsOfCases(found.cases, statedSeconds),
      failing: found.cases.filter((c) => c.status === 'failed' || c.status === 'error'),
      suites: found.suites,
      statedSeconds,
    },
  };
}
