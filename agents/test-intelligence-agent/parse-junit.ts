import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { shortMessage, type ParsedReport, type TestCase } from './test-case.js';

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  // Names and messages stay strings: a test named "404" must not become a number.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
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

function seconds(value: string | null): number {
  const parsed = Number((value ?? '').replace(/,/g, ''));
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : 0;
}

/** `message` attribute first (the assertion), else the body (the stack), shortened. */
function messageOf(problem: XmlNode | undefined): string | null {
  if (!problem) return null;
  const body = typeof problem['#text'] === 'string' ? problem['#text'] : null;
  return shortMessage(attr(problem, 'message')) ?? shortMessage(attr(problem, 'type')) ?? shortMessage(body);
}

function caseOf(node: XmlNode, suiteName: string): TestCase {
  const failure = nodes(node.failure)[0];
  const error = nodes(node.error)[0];
  const skipped = node.skipped !== undefined;
  const rerunFlaky = ['flakyFailure', 'flakyError'].some((key) => node[key] !== undefined);
  const status = failure ? 'failed' : error ? 'error' : skipped ? 'skipped' : 'passed';
  return {
    name: attr(node, 'name') ?? '(unnamed)',
    classname: attr(node, 'classname') ?? suiteName,
    status,
    message: messageOf(failure ?? error),
    time: seconds(attr(node, 'time')),
    rerunFlaky: status === 'passed' && rerunFlaky,
  };
}

/** Test suites nest (JUnit 5, pytest, some CI merges); every level's cases count. */
function collectCases(suite: XmlNode, into: TestCase[]): void {
  const suiteName = attr(suite, 'name') ?? '';
  for (const testCase of nodes(suite.testcase)) into.push(caseOf(testCase, suiteName));
  for (const child of nodes(suite.testsuite)) collectCases(child, into);
}

/**
 * A JUnit XML report: `<testsuites>` of `<testsuite>`s, or a single `<testsuite>` root. Counts
 * come from the test cases themselves rather than the suites' attributes, which some
 * producers leave stale or omit. Throws on text that is not well-formed JUnit XML.
 */
export function parseJunit(xml: string): ParsedReport {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new Error(`not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  const doc = parser.parse(xml) as XmlNode;
  const root = doc.testsuites;
  const suites = root !== undefined ? nodes(Array.isArray(root) ? root : [root]) : [];
  const topSuites = suites.length > 0 ? suites.flatMap((s) => nodes(s.testsuite)) : nodes(doc.testsuite);
  if (root === undefined && doc.testsuite === undefined) throw new Error('no <testsuites> or <testsuite> root element');
  const cases: TestCase[] = [];
  for (const suite of topSuites) collectCases(suite, cases);
  const rootTime = suites.length > 0 ? attr(suites[0]!, 'time') : null;
  const suiteTimes = topSuites.map((suite) => attr(suite, 'time'));
  const time =
    rootTime !== null ? seconds(rootTime) : suiteTimes.length > 0 && suiteTimes.every((t) => t !== null) ? suiteTimes.reduce((sum, t) => sum + seconds(t), 0) : null;
  return { cases, time };
}
