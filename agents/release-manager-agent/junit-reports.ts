import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { XMLParser } from 'fast-xml-parser';

/** Bounds of the walk for reports, so a huge scope cannot hang the worker. */
export const WALK_LIMITS = { maxEntries: 5000, maxDepth: 8, maxReports: 50, maxReportBytes: 5 * 1024 * 1024 } as const;
const SKIPPED_DIRS = new Set(['node_modules', '.git']);
const MAX_FAILING_CASES = 20;

export interface FailingCase {
  report: string;
  name: string;
  className: string | null;
  message: string;
}

export interface JunitSummary {
  reports: string[];
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  failing: FailingCase[];
  unreadable: Array<{ report: string; reason: string }>;
  /** True when the walk stopped at one of WALK_LIMITS. */
  walkTruncated: boolean;
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', isArray: (name) => name === 'testsuite' || name === 'testcase' });

type XmlNode = Record<string, unknown>;
const asArray = (value: unknown): XmlNode[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]) as XmlNode[];

function messageOf(node: unknown): string {
  const first = asArray(node)[0];
  if (first === undefined) return '';
  if (typeof first === 'string') return first;
  const text = first['@_message'] ?? first['#text'] ?? '';
  return String(text).trim().slice(0, 300);
}

function suitesOf(doc: XmlNode): XmlNode[] {
  const root = doc.testsuites as XmlNode | undefined;
  const nested = root ? asArray(root.testsuite) : [];
  return [...nested, ...asArray(doc.testsuite)].flatMap(function flatten(suite: XmlNode): XmlNode[] {
    return [suite, ...asArray(suite.testsuite).flatMap(flatten)];
  });
}

/** Files that look like JUnit reports: `junit*.xml`, `TEST-*.xml`, or any XML under a folder named for test results. */
function looksLikeReport(rel: string): boolean {
  const name = rel.split('/').pop()!.toLowerCase();
  if (!name.endsWith('.xml')) return false;
  return name.startsWith('junit') || name.startsWith('test-') || /(^|\/)(test-results|test-reports|reports|junit)\//i.test(rel);
}

async function findReports(scopeDir: string): Promise<{ files: string[]; truncated: boolean }> {
  const files: string[] = [];
  let seen = 0;
  let truncated = false;
  async function walk(dir: string, depth: number): Promise<void> {
    if (depth > WALK_LIMITS.maxDepth) {
      truncated = true;
      return;
    }
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (++seen > WALK_LIMITS.maxEntries || files.length >= WALK_LIMITS.maxReports) {
        truncated = true;
        return;
      }
      const full = join(dir, entry.name);
      if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) await walk(full, depth + 1);
      else if (entry.isFile() && looksLikeReport(relative(scopeDir, full).split('\\').join('/'))) files.push(full);
    }
  }
  await walk(scopeDir, 0);
  return { files, truncated };
}

/** Reads every JUnit report under the scope (bounded) and totals its cases, naming each failing one. */
export async function readJunitReports(scopeDir: string, workspaceRoot: string): Promise<JunitSummary> {
  const { files, truncated } = await findReports(scopeDir);
  const summary: JunitSummary = { reports: [], tests: 0, failures: 0, errors: 0, skipped: 0, failing: [], unreadable: [], walkTruncated: truncated };
  for (const file of files) {
    const report = relative(workspaceRoot, file).split('\\').join('/');
    try {
      if ((await stat(file)).size > WALK_LIMITS.maxReportBytes) throw new Error(`larger than ${WALK_LIMITS.maxReportBytes} bytes`);
      const doc = parser.parse(await readFile(file, 'utf8')) as XmlNode;
      const suites = suitesOf(doc);
      if (suites.length === 0) continue; // XML, but not a test report
      summary.reports.push(report);
      for (const suite of suites) {
        for (const testcase of asArray(suite.testcase)) {
          summary.tests += 1;
          const failure = testcase.failure ?? testcase.error;
          if (testcase.failure !== undefined) summary.failures += 1;
          else if (testcase.error !== undefined) summary.errors += 1;
          else if (testcase.skipped !== undefined) summary.skipped += 1;
          if (failure !== undefined && summary.failing.length < MAX_FAILING_CASES) {
            summary.failing.push({
              report,
              name: String(testcase['@_name'] ?? 'unnamed'),
              className: testcase['@_classname'] === undefined ? null : String(testcase['@_classname']),
              message: messageOf(failure),
            });
          }
        }
      }
    } catch (err) {
      summary.unreadable.push({ report, reason: (err as Error).message.slice(0, 200) });
    }
  }
  return summary;
}
