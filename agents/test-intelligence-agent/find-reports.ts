import { extname } from 'node:path';
import { SOURCE_CONTROL_KINDS } from '../../src/worker-sdk/ignored-folders.js';
import { resolveScope } from '../../src/worker-sdk/scope-path.js';
import { walkScope } from '../../src/worker-sdk/scope-walk.js';
import type { ReportFormat } from './test-case.js';

/** A report file to read. */
export interface ReportFile {
  /** Workspace-relative, with forward slashes: how results cite it and how it is read. */
  path: string;
  format: ReportFormat;
  /** Named in payload.reports (a file that cannot be read is then an error, not skipped). */
  named: boolean;
}

/** Bounds of the scope walk: a huge scope ends the walk, it cannot hang the worker. */
export const MAX_WALK_ENTRIES = 50_000;
export const MAX_REPORTS = 100;
/** JSON files that are configuration, never test reports. */
const NOT_REPORTS = /^(?:package(?:-lock)?|tsconfig.*|jsconfig|composer|\.eslintrc|renovate)\.json$/i;

/** The report format a discovered file name means, or null when the walk should pass it by. */
export function discoveredFormat(name: string): ReportFormat | null {
  if (/^junit.*\.xml$/i.test(name) || /^TEST-.*\.xml$/i.test(name)) return 'junit';
  if (/\.tap$/i.test(name)) return 'tap';
  if (/\.json$/i.test(name) && !NOT_REPORTS.test(name) && /jest|vitest|test|report|result/i.test(name)) return 'json';
  return null;
}

/** The format of a file named in payload.reports, by its extension. */
function namedFormat(path: string): ReportFormat | null {
  const ext = extname(path).toLowerCase();
  return ext === '.xml' ? 'junit' : ext === '.tap' ? 'tap' : ext === '.json' ? 'json' : null;
}

/** Is `path` the scope itself or inside it? Both workspace-relative, forward slashes. */
function insideScope(scope: string, path: string): boolean {
  return scope === '.' || path === scope || path.startsWith(`${scope}/`);
}

export type FoundReports = { files: ReportFile[]; walkTruncated: boolean } | { problem: string };

/**
 * The reports of a scope: those named in `reports` (workspace-relative, inside the scope), else
 * every junit*.xml, TEST-*.xml, *.tap and test-report JSON under the scope, depth first in
 * name order, within the walk bounds. Build folders are walked: CI writes reports into them
 * (Gradle's build/test-results, Maven's target/surefire-reports).
 */
export function findReports(workspaceRoot: string, scope: string, reports: string[] | null): FoundReports {
  const scoped = resolveScope(workspaceRoot, scope);
  if ('problem' in scoped) return scoped;

  if (reports !== null) {
    const files: ReportFile[] = [];
    for (const report of reports) {
      const named = resolveScope(workspaceRoot, report, 'report');
      if ('problem' in named) return named;
      if (!insideScope(scoped.relative, named.relative)) return { problem: `report ${JSON.stringify(report)} is outside scope ${JSON.stringify(scope)}` };
      const format = namedFormat(named.relative);
      if (format === null) return { problem: `report ${JSON.stringify(report)} is not .xml (JUnit), .tap or .json` };
      if (!named.stats.isFile()) return { problem: `report ${JSON.stringify(report)} is not a file` };
      files.push({ path: named.relative, format, named: true });
    }
    return { files, walkTruncated: false };
  }

  if (scoped.stats.isFile()) {
    const format = discoveredFormat(scoped.relative.split('/').pop()!) ?? namedFormat(scoped.relative);
    return { files: format ? [{ path: scoped.relative, format, named: true }] : [], walkTruncated: false };
  }
  const walk = walkScope(workspaceRoot, scoped.absolute, {
    include: ({ name }) => discoveredFormat(name) !== null,
    ignore: SOURCE_CONTROL_KINDS,
    maxFiles: MAX_REPORTS,
    maxEntries: MAX_WALK_ENTRIES,
  });
  // A hard-linked report is listed too, so the result names it among the reports that could not be read.
  const hardLinked = walk.skipped.filter((skip) => skip.reason === 'hard-link');
  return {
    files: [
      ...walk.files.map((file) => ({ path: file.path, format: discoveredFormat(file.name)!, named: false })),
      ...hardLinked.map((skip) => ({ path: skip.path, format: discoveredFormat(skip.path.split('/').pop()!)!, named: false })),
    ],
    walkTruncated: walk.stopped || walk.skipCounts['over-file-limit'] > 0,
  };
}
