import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, relative, sep } from 'node:path';
import { resolveWorkspacePath, WorkspaceBoundaryError } from '../../src/workspace/boundary.js';
import type { ReportFormat } from './test-case.js';

/** A report file to read. */
export interface ReportFile {
  absolute: string;
  /** Workspace-relative, with forward slashes: how results cite it. */
  path: string;
  format: ReportFormat;
  /** Named in payload.reports (a file that cannot be read is then an error, not skipped). */
  named: boolean;
}

/** Bounds of the scope walk: a huge scope ends the walk, it cannot hang the worker. */
export const MAX_WALK_ENTRIES = 50_000;
export const MAX_REPORTS = 100;
const SKIPPED_DIRS = new Set(['node_modules', '.git']);
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

function toPosix(path: string): string {
  return path.split(sep).join('/');
}

function inside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

export type FoundReports = { scopeDir: string; files: ReportFile[]; walkTruncated: boolean } | { problem: string };

async function walk(root: string, workspaceRoot: string): Promise<{ files: ReportFile[]; truncated: boolean }> {
  const files: ReportFile[] = [];
  const queue = [root];
  let visited = 0;
  while (queue.length > 0) {
    const dir = queue.shift()!;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable folder: nothing of it can be evidence
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      visited += 1;
      if (visited > MAX_WALK_ENTRIES || files.length >= MAX_REPORTS) return { files, truncated: true };
      const path = join(dir, entry.name);
      // Symbolic links are not followed: they could lead out of the scope.
      if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) queue.push(path);
      else if (entry.isFile()) {
        const format = discoveredFormat(entry.name);
        if (format) files.push({ absolute: path, path: toPosix(relative(workspaceRoot, path)), format, named: false });
      }
    }
  }
  return { files, truncated: false };
}

/**
 * The reports of a scope: those named in `reports` (workspace-relative, inside the scope), else
 * every junit*.xml, TEST-*.xml, *.tap and test-report JSON under the scope, breadth first in
 * name order, within the walk bounds.
 */
export async function findReports(workspaceRoot: string, scope: string, reports: string[] | null): Promise<FoundReports> {
  let scopePath: string;
  try {
    scopePath = resolveWorkspacePath(workspaceRoot, scope);
  } catch (err) {
    if (err instanceof WorkspaceBoundaryError) return { problem: `scope ${err.message}` };
    throw err;
  }
  const scopeInfo = await stat(scopePath).catch(() => null);
  if (!scopeInfo) return { problem: `scope ${JSON.stringify(scope)} does not exist in the workspace` };

  if (reports !== null) {
    const files: ReportFile[] = [];
    for (const report of reports) {
      let path: string;
      try {
        path = resolveWorkspacePath(workspaceRoot, report);
      } catch (err) {
        if (err instanceof WorkspaceBoundaryError) return { problem: `report ${err.message}` };
        throw err;
      }
      if (!inside(scopePath, path)) return { problem: `report ${JSON.stringify(report)} is outside scope ${JSON.stringify(scope)}` };
      const format = namedFormat(path);
      if (format === null) return { problem: `report ${JSON.stringify(report)} is not .xml (JUnit), .tap or .json` };
      const info = await stat(path).catch(() => null);
      if (!info?.isFile()) return { problem: `report ${JSON.stringify(report)} does not exist` };
      files.push({ absolute: path, path: toPosix(relative(workspaceRoot, path)), format, named: true });
    }
    return { scopeDir: scopePath, files, walkTruncated: false };
  }

  if (scopeInfo.isFile()) {
    const format = discoveredFormat(basename(scopePath)) ?? namedFormat(scopePath);
    const files = format ? [{ absolute: scopePath, path: toPosix(relative(workspaceRoot, scopePath)), format, named: true }] : [];
    return { scopeDir: scopePath, files, walkTruncated: false };
  }
  const { files, truncated } = await walk(scopePath, workspaceRoot);
  return { scopeDir: scopePath, files, walkTruncated: truncated };
}
