import { lstatSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative as relativePath, resolve, sep, win32 } from 'node:path';
import { DomainError } from '../domain/errors.js';

/**
 * The workspace boundary: task scopes are paths relative to the workspace root and must never
 * reach outside it, neither lexically (`..`, absolute paths) nor through symbolic links.
 * Code `scope_outside_workspace`; the refused value and the reason stay apart for callers that
 * report them separately (a payload check turns each into one detail with its JSON Pointer).
 */
export class WorkspaceBoundaryError extends DomainError {
  override name = 'WorkspaceBoundaryError';
  constructor(
    readonly value: string,
    readonly reason: string,
    /** `invalid_request` for a path no file system can hold (over its limits). */
    code: 'scope_outside_workspace' | 'invalid_request' = 'scope_outside_workspace',
  ) {
    super(code, `path ${JSON.stringify(shortened(value))} ${reason}`);
  }
}

/** The file system's limits (Linux, and most others): one name, and a whole path, in bytes. */
export const MAX_NAME_BYTES = 255;
export const MAX_PATH_BYTES = 4095;

/** A long refused value is quoted by its start only: the message must stay readable. */
export function shortened(value: string): string {
  return value.length > 120 ? `${value.slice(0, 100)}… (${value.length} characters)` : value;
}

/**
 * Why `relative` cannot name a file on any file system (a component over 255 bytes, or the whole
 * path over 4095), or null. Checked before any file system call: the call would fail with
 * ENAMETOOLONG, which is the caller's mistake, not the service's.
 */
export function pathLimitProblem(relative: string): string | null {
  const bytes = Buffer.byteLength(relative, 'utf8');
  if (bytes > MAX_PATH_BYTES) return `is ${bytes} bytes long; a path may have at most ${MAX_PATH_BYTES}`;
  for (const component of relative.split(/[\\/]/)) {
    const length = Buffer.byteLength(component, 'utf8');
    if (length > MAX_NAME_BYTES) return `has a name of ${length} bytes; a file or folder name may have at most ${MAX_NAME_BYTES}`;
  }
  return null;
}

function isInside(root: string, candidate: string): boolean {
  const rel = relativePath(root, candidate);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return false;
    throw err;
  }
}

/** The deepest ancestor of `path` (itself included) that exists, without following links. */
function deepestExisting(path: string): string {
  let current = path;
  while (!exists(current)) {
    const parent = dirname(current);
    if (parent === current) return current;
    current = parent;
  }
  return current;
}

/**
 * Resolves a workspace-relative path to an absolute one inside `workspaceRoot`, or throws
 * WorkspaceBoundaryError. Paths that do not exist yet are allowed (a task may create them); the
 * part that does exist is resolved through its symbolic links and must stay inside the real root.
 */
export function resolveWorkspacePath(workspaceRoot: string, relative: string): string {
  if (typeof relative !== 'string') throw new WorkspaceBoundaryError(String(relative), 'is not a string');
  if (relative.includes('\0')) throw new WorkspaceBoundaryError(relative, 'contains a NUL byte');
  if (relative.trim() === '') throw new WorkspaceBoundaryError(relative, 'is empty; use "." for the workspace root');
  const tooLong = pathLimitProblem(relative);
  if (tooLong) throw new WorkspaceBoundaryError(relative, tooLong, 'invalid_request');
  // win32.isAbsolute also catches `C:\…` and `\\server\…`, which would be relative names on POSIX.
  if (isAbsolute(relative) || win32.isAbsolute(relative)) {
    throw new WorkspaceBoundaryError(relative, 'is absolute; task paths are relative to the workspace root');
  }
  const root = resolve(workspaceRoot);
  const target = resolve(root, relative);
  if (!isInside(root, target)) throw new WorkspaceBoundaryError(relative, 'escapes the workspace root');

  // Nothing of the workspace exists yet: the lexical check is all there is to check.
  if (!exists(root)) return target;
  const realRoot = realpathSync(root);
  const existing = deepestExisting(target);
  let realExisting: string;
  try {
    realExisting = realpathSync(existing);
  } catch {
    // lstat found it but realpath cannot follow it: a dangling link whose target could be anywhere.
    throw new WorkspaceBoundaryError(relative, 'passes through a symbolic link that cannot be resolved');
  }
  if (!isInside(realRoot, realExisting)) {
    throw new WorkspaceBoundaryError(relative, 'leads outside the workspace root through a symbolic link');
  }
  return target;
}
