import { isAbsolute, join } from 'node:path';
import { displayPath } from '../../src/common/display-path.js';
import type { FailedTest } from './test-summary.js';

/**
 * Names the file of each failure as displayPath does: workspace-relative, or `outside:<name>`
 * for a file outside the workspace, never the server's absolute path. Runners print files
 * relative to the project folder (their cwd), absolute (node:test's TAP `location`) or as
 * `file://` URLs.
 */
export function workspaceRelativeFailures(failures: FailedTest[], workspaceRoot: string, projectDir: string): FailedTest[] {
  return failures.map((failure) => {
    if (failure.file === null) return failure;
    const path = failure.file.replace(/^file:\/\//, '');
    const absolute = isAbsolute(path) ? path : join(projectDir, path);
    return { ...failure, file: displayPath(absolute, { workspaceRoot }) };
  });
}
