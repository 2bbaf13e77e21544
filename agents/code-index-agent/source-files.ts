import { extname, relative, resolve, sep } from 'node:path';
import { walkScope } from '../../src/worker-sdk/scope-walk.js';

export const SOURCE_EXTENSIONS = new Set(['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.tsx', '.jsx']);
export const MAX_SOURCE_FILES = 3000;
export const MAX_SOURCE_BYTES = 512 * 1024;

export interface SourceFile {
  absolutePath: string;
  /** Workspace-relative, with forward slashes. */
  path: string;
  size: number;
  modifiedMs: number;
}

export interface SourceListing {
  files: SourceFile[];
  oversized: string[];
  beyondLimit: number;
  symlinks: number;
}

export function languageOf(path: string): 'typescript' | 'javascript' {
  return /\.(?:ts|tsx|mts|cts)$/.test(path) ? 'typescript' : 'javascript';
}

/**
 * The JS/TS source files of a scope (a folder, or one file), sorted. Links are not followed
 * (their target may leave the workspace); files over MAX_SOURCE_BYTES are named, not read.
 */
export function listSourceFiles(workspaceRoot: string, scopePath: string): SourceListing {
  const root = resolve(workspaceRoot);
  const listing: SourceListing = { files: [], oversized: [], beyondLimit: 0, symlinks: 0 };
  walkScope(scopePath, {
    symlink: () => {
      listing.symlinks += 1;
    },
    file: (absolute, stats) => {
      if (!SOURCE_EXTENSIONS.has(extname(absolute))) return;
      const path = relative(root, absolute).split(sep).join('/');
      if (stats.size > MAX_SOURCE_BYTES) {
        listing.oversized.push(path);
        return;
      }
      if (listing.files.length >= MAX_SOURCE_FILES) {
        listing.beyondLimit += 1;
        return;
      }
      listing.files.push({ absolutePath: absolute, path, size: stats.size, modifiedMs: stats.mtimeMs });
    },
  });
  return listing;
}
