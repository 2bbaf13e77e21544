import { SOURCE_CONTROL_KINDS } from '../../src/worker-sdk/ignored-folders.js';
import { resolveScope as resolveWorkspaceScope } from '../../src/worker-sdk/scope-path.js';
import { walkScope } from '../../src/worker-sdk/scope-walk.js';

/** Bounds that keep a huge scope from hanging the worker. */
export const MAX_FILES = 5000;
export const MAX_FILE_BYTES = 1024 * 1024;

/** One regular file of the scope, with what the permission rules need. */
export interface ScopeFile {
  /** Workspace-relative, with forward slashes: how findings cite it and how it is read. */
  path: string;
  size: number;
  mode: number;
}

export interface ScopeListing {
  /** Files within the bounds, to be read. */
  files: ScopeFile[];
  /** Files larger than MAX_FILE_BYTES: never read, still judged by the permission rules. */
  oversizedFiles: ScopeFile[];
  oversized: number;
  /** Files left out because the scope holds more than MAX_FILES. */
  beyondLimit: number;
  /** Symbolic links are not followed: their target may lie outside the scope. */
  symlinks: number;
  /** Hard-linked files are not read: one may be a file from outside the workspace. */
  hardLinks: number;
}

export type ScopeResolution = { ok: true; absolute: string } | { ok: false; problem: string };

/** Resolves `payload.scope` (a string, as the task schema guarantees) inside the workspace and checks that it exists. */
export function resolveScope(workspaceRoot: string, scope: string): ScopeResolution {
  const resolved = resolveWorkspaceScope(workspaceRoot, scope);
  return 'problem' in resolved ? { ok: false, problem: resolved.problem } : { ok: true, absolute: resolved.absolute };
}

/**
 * Every regular file under `scopePath` (or the file itself), dotfiles included, in a stable
 * (sorted) order. node_modules and .git are skipped and links are not followed. Build output
 * (dist/, build/, …) is read: a bundler inlines secrets into it, and it is what gets deployed.
 */
export function listScopeFiles(workspaceRoot: string, scopePath: string): ScopeListing {
  const walk = walkScope(workspaceRoot, scopePath, {
    ignore: SOURCE_CONTROL_KINDS,
    maxFiles: MAX_FILES,
    maxFileBytes: MAX_FILE_BYTES,
    // Every oversized file is listed: the permission rules judge each one.
    maxListedSkips: MAX_FILES,
  });
  const metadata = ({ path, size, mode }: ScopeFile): ScopeFile => ({ path, size, mode });
  return {
    files: walk.files.map(metadata),
    oversizedFiles: walk.skipped.flatMap((skip) => (skip.reason === 'over-byte-limit' && skip.file ? [metadata(skip.file)] : [])),
    oversized: walk.skipCounts['over-byte-limit'],
    beyondLimit: walk.skipCounts['over-file-limit'],
    symlinks: walk.skipCounts['symbolic-link'],
    hardLinks: walk.skipCounts['hard-link'],
  };
}
