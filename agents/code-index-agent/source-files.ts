import { extname } from 'node:path';
import { walkScope } from '../../src/worker-sdk/scope-walk.js';

export const SOURCE_EXTENSIONS = new Set(['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.tsx', '.jsx']);
export const MAX_SOURCE_FILES = 3000;
export const MAX_SOURCE_BYTES = 512 * 1024;
/** Oversized files named in the result; the count says how many there were. */
export const MAX_LISTED_OVERSIZED = 500;

export interface SourceFile {
  /** Workspace-relative, with forward slashes: how the index cites it and how it is read. */
  path: string;
  size: number;
  modifiedMs: number;
}

export interface SourceListing {
  files: SourceFile[];
  /** Source files over MAX_SOURCE_BYTES, named (at most MAX_LISTED_OVERSIZED), not read. */
  oversized: string[];
  oversizedCount: number;
  beyondLimit: number;
  symlinks: number;
  /** Hard-linked files (more than one name for one file): never read, since one may be a file from outside the workspace. */
  hardLinks: number;
}

export function languageOf(path: string): 'typescript' | 'javascript' {
  return /\.(?:ts|tsx|mts|cts)$/.test(path) ? 'typescript' : 'javascript';
}

/**
 * The JS/TS source files of a scope (a folder, or one file), sorted. Links are not followed
 * (their target may leave the workspace) and hard-linked files are not read; files over MAX_SOURCE_BYTES are named, not read.
 * Every folder of the ignore list is passed by, build output included: compiled copies of the
 * sources (dist/, coverage reports) would index every symbol twice.
 */
export function listSourceFiles(workspaceRoot: string, scopePath: string): SourceListing {
  const walk = walkScope(workspaceRoot, scopePath, {
    include: ({ name }) => SOURCE_EXTENSIONS.has(extname(name)),
    maxFiles: MAX_SOURCE_FILES,
    maxFileBytes: MAX_SOURCE_BYTES,
    maxListedSkips: MAX_LISTED_OVERSIZED,
  });
  return {
    files: walk.files.map(({ path, size, modifiedMs }) => ({ path, size, modifiedMs })),
    oversized: walk.skipped.filter((skip) => skip.reason === 'over-byte-limit').map((skip) => skip.path),
    oversizedCount: walk.skipCounts['over-byte-limit'],
    beyondLimit: walk.skipCounts['over-file-limit'],
    symlinks: walk.skipCounts['symbolic-link'],
    hardLinks: walk.skipCounts['hard-link'],
  };
}
