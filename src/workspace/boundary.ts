import { lstatSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative as relativePath, resolve, sep, win32 } from 'node:path';
import { DomainError, type ErrorDetail } from '../domain/errors.js';
import type { CatalogEntry } from '../tasks/catalog.js';

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
  ) {
    super('scope_outside_workspace', `path ${JSON.stringify(value)} ${reason}`);
  }
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

/**
 * Every string under one scope selector of a payload, with its JSON Pointer. Selectors are field
 * names, `a.b` for a nested field and `a[].b` for a field of every element of array `a`; a string
 * array at the end of a selector yields each element.
 */
export function collectScopeValues(selector: string, payload: Record<string, unknown>): Array<{ path: string; value: string }> {
  let nodes: Array<{ path: string; value: unknown }> = [{ path: '/body/payload', value: payload }];
  for (const segment of selector.split('.')) {
    const each = segment.endsWith('[]');
    const key = each ? segment.slice(0, -2) : segment;
    const next: Array<{ path: string; value: unknown }> = [];
    for (const node of nodes) {
      if (typeof node.value !== 'object' || node.value === null || Array.isArray(node.value)) continue;
      const child = (node.value as Record<string, unknown>)[key];
      const childPath = `${node.path}/${key}`;
      if (each) {
        if (Array.isArray(child)) child.forEach((item, i) => next.push({ path: `${childPath}/${i}`, value: item }));
      } else if (child !== undefined) {
        next.push({ path: childPath, value: child });
      }
    }
    nodes = next;
  }
  const values: Array<{ path: string; value: string }> = [];
  for (const node of nodes) {
    if (typeof node.value === 'string') values.push({ path: node.path, value: node.value });
    else if (Array.isArray(node.value)) {
      node.value.forEach((item, i) => {
        if (typeof item === 'string') values.push({ path: `${node.path}/${i}`, value: item });
      });
    }
  }
  return values;
}

/**
 * One detail per scope value of the payload that leaves the workspace. Values of the wrong type
 * are left to schema validation, which reports them with a better message.
 */
export function checkPayloadScopes(
  entry: CatalogEntry,
  payload: Record<string, unknown>,
  workspaceRoot: string,
): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const selector of entry.scopeFields) {
    for (const { path, value } of collectScopeValues(selector, payload)) {
      try {
        resolveWorkspacePath(workspaceRoot, value);
      } catch (err) {
        if (!(err instanceof WorkspaceBoundaryError)) throw err;
        details.push({ path, message: err.message });
      }
    }
  }
  return details;
}
