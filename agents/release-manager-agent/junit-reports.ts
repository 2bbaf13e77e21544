import { posix } from 'node:path';
import { displayText } from '../../src/worker-sdk/display-text.js';
import { SOURCE_CONTROL_KINDS } from '../../src/worker-sdk/ignored-folders.js';
import { parseJunitXml } from '../../src/worker-sdk/junit-report.js';
import { walkScope } from '../../src/worker-sdk/scope-walk.js';
import { readScopedFile } from '../../src/worker-sdk/workspace-file.js';

/** Bounds of the walk for reports, so a huge scope cannot hang the worker. */
export const WALK_LIMITS = { maxEntries: 5000, maxDepth: 8, maxReports: 50, maxReportBytes: 5 * 1024 * 1024 } as const;
const MAX_FAILING_CASES = 20;
const MAX_MESSAGE_CHARS = 300;

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

/**
 * Files that look like JUnit reports: `junit*.xml`, `TEST-*.xml`, or any XML under a folder named
 * for test results. `scopeRelative` is the file's path below the scope, so a folder above the
 * scope does not make its XML files reports.
 */
function looksLikeReport(scopeRelative: string): boolean {
  const name = scopeRelative.split('/').pop()!.toLowerCase();
  if (!name.endsWith('.xml')) return false;
  return name.startsWith('junit') || name.startsWith('test-') || /(^|\/)(test-results|test-reports|reports|junit)\//i.test(scopeRelative);
}

/**
 * Reads every JUnit report under the scope (bounded) and totals its cases, naming each failing
 * one. Build folders are walked (CI writes reports there); XML that is not a JUnit report is
 * passed by, a report that cannot be read is named in `unreadable`.
 */
export function readJunitReports(workspaceRoot: string, scope: { absolute: string; relative: string }): JunitSummary {
  const below = (path: string) => (scope.relative === '.' ? path : posix.relative(scope.relative, path));
  const walk = walkScope(workspaceRoot, scope.absolute, {
    include: ({ path }) => looksLikeReport(below(path)),
    ignore: SOURCE_CONTROL_KINDS,
    maxFiles: WALK_LIMITS.maxReports,
    maxEntries: WALK_LIMITS.maxEntries,
    maxDepth: WALK_LIMITS.maxDepth,
  });
  const summary: JunitSummary = {
    reports: [],
    tests: 0,
    failures: 0,
    errors: 0,
    skipped: 0,
    failing: [],
    unreadable: [],
    walkTruncated: walk.stopped || walk.skipCounts['over-file-limit'] > 0 || walk.skipCounts['depth-limit'] > 0,
  };
  // Hard-linked reports are never read (one may be a file from outside the workspace); they are named.
  for (const skip of walk.skipped) {
    if (skip.reason === 'hard-link') summary.unreadable.push({ report: skip.path, reason: 'is a hard link; hard-linked files are not opened' });
  }
  for (const { path: report } of walk.files) {
    const read = readScopedFile(workspaceRoot, report, { maxBytes: WALK_LIMITS.maxReportBytes });
    if (!read.ok) {
      summary.unreadable.push({ report, reason: read.message });
      continue;
    }
    const junit = parseJunitXml(read.content.toString('utf8'));
    if (!junit.ok) {
      // XML of another kind under a reports folder is not a test report; broken XML is one that cannot be read.
      if (junit.problem === 'malformed') summary.unreadable.push({ report, reason: junit.reason.slice(0, 200) });
      continue;
    }
    if (junit.report.suites === 0) continue; // an empty <testsuites/>: no evidence either way
    summary.reports.push(report);
    summary.tests += junit.report.totals.tests;
    summary.failures += junit.report.totals.failures;
    summary.errors += junit.report.totals.errors;
    summary.skipped += junit.report.totals.skipped;
    for (const failing of junit.report.failing.slice(0, MAX_FAILING_CASES - summary.failing.length)) {
      summary.failing.push({
        report,
        name: failing.name,
        className: failing.className,
        message: displayText(failing.message ?? '', { workspaceRoot }).slice(0, MAX_MESSAGE_CHARS),
      });
    }
  }
  return summary;
}
