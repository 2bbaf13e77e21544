import { isAbsolute, join, relative, sep } from 'node:path';
import type { FailedTest } from './test-summary.js';

function toPosix(path: string): string {
  return path.split(sep).join('/');
}

/**
 * Rewrites the file of each failure as a workspace-relative path. Runners print files relative
 * to the project folder (their cwd) or absolute (node:test's TAP `location`); a path that is not
 * inside the workspace is kept as printed.
 */
export function workspaceRelativeFailures(failures: FailedTest[], workspaceRoot: string, projectDir: string): FailedTest[] {
  return failures.map((failure) => {
    if (failure.file === null) return failure;
    const path = failure.file.replace(/^file:\/\//, '');
    const absolute = isAbsolute(path) ? path : join(projectDir, path);
    const rel = relative(workspaceRoot, absolute);
    if (rel.startsWith('..') || isAbsolute(rel)) return failure;
    return { ...failure, file: toPosix(rel) };
  });
}
