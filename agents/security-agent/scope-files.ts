import { lstatSync, type Stats } from 'node:fs';
import { relative, sep } from 'node:path';
import { walkScope } from '../../src/worker-sdk/scope-walk.js';
import { resolveWorkspacePath, WorkspaceBoundaryError } from '../../src/workspace/boundary.js';

/** Bounds that keep a huge scope from hanging the worker. */
export const MAX_FILES = 5000;
export const MAX_FILE_BYTES = 1024 * 1024;

/** One regular file of the scope, with what the permission rules need. */
export interface ScopeFile {
  absolutePath: string;
  /** Workspace-relative, with forward slashes. */
  path: string;
  size: number;
  mode: number;
}

export interface ScopeListing {
  files: ScopeFile[];
  /** Files larger than MAX_FILE_BYTES: listed for the permission rules, never read. */
  oversized: number;
  /** Files left out because the scope holds more than MAX_FILES. */
  beyondLimit: number;
  /** Symbolic links are not followed: their target may lie outside the scope. */
  symlinks: number;
}

export type ScopeResolution = { ok: true; absolute: string; stats: Stats } | { ok: false; problem: string };

/** Resolves `payload.scope` (a string, as the task schema guarantees) inside the workspace and checks that it exists. */
export function resolveScope(workspaceRoot: string, scope: string): ScopeResolution {
  let absolute: string;
  try {
    absolute = resolveWorkspacePath(workspaceRoot, scope);
  } catch (err) {
    if (err instanceof WorkspaceBoundaryError) return { ok: false, problem: `scope ${err.message}` };
    throw err;
  }
  try {
    return { ok: true, absolute, stats: lstatSync(absolute) };
  } catch {
    return { ok: false, problem: `scope ${JSON.stringify(scope)} does not exist in the workspace` };
  }
}

export function workspaceRelative(workspaceRoot: string, absolute: string): string {
  return relative(workspaceRoot, absolute).split(sep).join('/') || '.';
}

/**
 * Every regular file under `scopePath` (or the file itself), dotfiles included, in a stable
 * (sorted) order. node_modules and .git are skipped and links are not followed.
 */
export function listScopeFiles(workspaceRoot: string, scopePath: string): ScopeListing {
  const listing: ScopeListing = { files: [], oversized: 0, beyondLimit: 0, symlinks: 0 };
  walkScope(scopePath, {
    symlink: () => {
      listing.symlinks += 1;
    },
    file: (absolute, stats) => {
      if (listing.files.length >= MAX_FILES) {
        listing.beyondLimit += 1;
        return;
      }
      if (stats.size > MAX_FILE_BYTES) listing.oversized += 1;
      listing.files.push({ absolutePath: absolute, path: workspaceRelative(workspaceRoot, absolute), size: stats.size, mode: stats.mode });
    },
  });
  return listing;
}
