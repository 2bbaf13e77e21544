import { lstatSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { isIgnoredFolder, SOURCE_CONTROL_KINDS } from '../../src/worker-sdk/ignored-folders.js';
import { inspectWorkspacePath } from '../../src/worker-sdk/workspace-file.js';
import { resolveWorkspacePath, WorkspaceBoundaryError } from '../../src/common/workspace-path.js';

/** The approved scope of a change set: a folder (or a single file) of the workspace. */
export interface ChangeScope {
  /** Workspace-relative, with forward slashes; "." for the workspace root. */
  relative: string;
  absolute: string;
  /** The scope with its symbolic links resolved: a link inside it may not lead out of it. */
  real: string;
  isFile: boolean;
}

/** A change path that passed every check, ready to be read and written. */
export interface ScopedPath {
  relative: string;
  absolute: string;
}

export function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}

export function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Workspace-relative form of an absolute path, with forward slashes, for evidence. */
export function workspaceRelative(workspaceRoot: string, absolute: string): string {
  const rel = relative(workspaceRoot, absolute);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

/** Where a path really is: its deepest existing ancestor resolved through links, plus the rest. */
function realLocation(absolute: string): string {
  const missing: string[] = [];
  let existing = absolute;
  while (lstatOrNull(existing) === null) {
    const parent = dirname(existing);
    if (parent === existing) break;
    missing.unshift(basename(existing));
    existing = parent;
  }
  return join(realpathSync(existing), ...missing);
}

function boundaryProblem(err: unknown): string {
  if (err instanceof WorkspaceBoundaryError) return err.message;
  throw err;
}

/**
 * Resolves the payload's scope, which must exist inside the workspace and neither be nor pass
 * through a symbolic link: every change path below it is opened without following links.
 */
export function resolveScope(workspaceRoot: string, scope: string): ChangeScope | { problem: string } {
  let absolute: string;
  try {
    absolute = resolveWorkspacePath(workspaceRoot, scope);
  } catch (err) {
    return { problem: `scope ${boundaryProblem(err)}` };
  }
  const stats = lstatOrNull(absolute);
  if (stats === null) return { problem: `scope ${JSON.stringify(scope)} does not exist in the workspace` };
  const look = inspectWorkspacePath(workspaceRoot, workspaceRelative(workspaceRoot, absolute));
  if (!look.ok && (look.problem === 'symbolic-link' || look.problem === 'linked-folder')) return { problem: `scope ${JSON.stringify(scope)} ${look.reason}` };
  const real = realpathSync(absolute);
  return { relative: workspaceRelative(workspaceRoot, absolute), absolute, real, isFile: !statSync(absolute).isDirectory() };
}

/**
 * Checks one change path: inside the workspace, inside the scope both as written and through
 * its symbolic links, outside installed dependencies and version control (IGNORED_FOLDERS), not
 * itself a link or a folder (replacing a link by a file would silently change what the link
 * pointed at), not below a linked folder, and not a hard link (its bytes may be a file's from
 * outside the workspace). The workspace opener checks the same again when the file is read and
 * written.
 */
export function resolveChangePath(workspaceRoot: string, scope: ChangeScope, path: string): ScopedPath | { problem: string } {
  let absolute: string;
  try {
    absolute = resolveWorkspacePath(workspaceRoot, path);
  } catch (err) {
    return { problem: boundaryProblem(err) };
  }
  const rel = workspaceRelative(workspaceRoot, absolute);
  const outside = `path ${JSON.stringify(path)} is outside the scope ${JSON.stringify(scope.relative)}`;
  if (scope.isFile ? absolute !== scope.absolute : !isInside(scope.absolute, absolute)) return { problem: outside };
  if (!isInside(scope.real, realLocation(absolute))) {
    return { problem: `${outside} once its symbolic links are resolved` };
  }
  // Installed dependencies and version-control internals are never a refactor's to change; build
  // output is (a generated file may be checked in, and a build/ folder may hold build scripts).
  if (rel.split('/').some((segment) => isIgnoredFolder(segment, SOURCE_CONTROL_KINDS))) {
    return { problem: `path ${JSON.stringify(path)} is inside installed dependencies or version control (node_modules, .git, …), which a refactor never changes` };
  }
  const look = inspectWorkspacePath(workspaceRoot, rel);
  if (look.ok) return look.kind === 'folder' ? { problem: `path ${JSON.stringify(path)} is a folder, not a file` } : { relative: rel, absolute };
  switch (look.problem) {
    case 'missing':
      return { relative: rel, absolute };
    case 'symbolic-link':
      return { problem: `path ${JSON.stringify(path)} is a symbolic link; change the file it points at instead` };
    case 'not-a-file':
      return { problem: `path ${JSON.stringify(path)} is not a regular file` };
    default:
      return { problem: `path ${JSON.stringify(path)} ${look.reason}` };
  }
}
