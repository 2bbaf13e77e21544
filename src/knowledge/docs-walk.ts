import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { hardLinkProblem } from '../common/hard-link.js';

/** Doc files the index reads. Anything else under docsPath (images, binaries) is ignored. */
export const DOC_EXTENSIONS = new Set(['.md', '.markdown', '.mdx', '.txt']);

/** Bounds that keep one index pass cheap whatever lands in the docs folder. */
export const DOC_WALK_LIMITS = { maxFiles: 5000, maxFileBytes: 1024 * 1024, maxDepth: 12, maxListedSkips: 100 } as const;

/** Doc files stat'ed at once during a walk. */
const STAT_BATCH = 64;

export interface DocFile {
  /** Path relative to docsPath, with `/` separators on every platform. */
  path: string;
  absolutePath: string;
  size: number;
  mtimeMs: number;
}

export interface DocWalk {
  exists: boolean;
  files: DocFile[];
  /** Doc files left out because they were larger than maxFileBytes. */
  oversized: number;
  /** True when maxFiles was reached and the walk stopped early. */
  truncated: boolean;
  /** Doc files passed by, with the reason (hard-linked files: their content may live outside); at most maxListedSkips. */
  skipped: Array<{ path: string; reason: string }>;
}

/**
 * Lists doc files under `docsPath`, sorted by path. Hidden entries and node_modules are skipped,
 * symbolic links are not followed and hard-linked files are passed by (listed in `skipped`), so
 * no link can pull a file from outside into the index.
 */
export async function walkDocs(docsPath: string): Promise<DocWalk> {
  const result: DocWalk = { exists: true, files: [], oversized: 0, truncated: false, skipped: [] };

  // Doc files of one folder, in name order, are stat'ed up to STAT_BATCH at a time: one by one,
  // each stat was a round trip through the thread pool, and a walk of 500 docs spent most of its
  // time waiting between them. Results are taken in order, so the files kept (and where the walk
  // stops at maxFiles) are the same as a sequential walk's.
  const statInOrder = async (paths: string[]): Promise<void> => {
    for (let start = 0; start < paths.length && !result.truncated; start += STAT_BATCH) {
      const batch = paths.slice(start, start + STAT_BATCH);
      const infos = await Promise.all(batch.map((path) => lstat(path)));
      for (const [i, absolutePath] of batch.entries()) {
        if (result.files.length >= DOC_WALK_LIMITS.maxFiles) {
          result.truncated = true;
          return;
        }
        const info = infos[i]!;
        const path = relative(docsPath, absolutePath).split(sep).join('/');
        const hardLink = hardLinkProblem(info);
        if (hardLink) {
          if (result.skipped.length < DOC_WALK_LIMITS.maxListedSkips) result.skipped.push({ path, reason: hardLink });
          continue;
        }
        if (info.size > DOC_WALK_LIMITS.maxFileBytes) {
          result.oversized += 1;
          continue;
        }
        result.files.push({ path, absolutePath, size: info.size, mtimeMs: info.mtimeMs });
      }
    }
  };

  const visit = async (dir: string, depth: number): Promise<void> => {
    if (depth > DOC_WALK_LIMITS.maxDepth || result.truncated) return;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      // The docs folder itself is read without a stat first (doc-sync walks it on every run):
      // absent, or not a folder, it does not exist for the index.
      if (depth === 0 && (code === 'ENOENT' || code === 'ENOTDIR')) {
        result.exists = false;
        return;
      }
      // a sub-folder removed or locked during the walk is not worth failing the index for
      if (['ENOENT', 'EACCES', 'EPERM'].includes(code)) return;
      throw err;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    let files: string[] = [];
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const absolutePath = join(dir, entry.name);
      if (entry.isDirectory()) {
        // Files named before the folder come first, as in a walk that visits entries in order.
        await statInOrder(files);
        files = [];
        if (result.truncated) return;
        await visit(absolutePath, depth + 1);
        if (result.truncated) return;
      } else if (entry.isFile() && DOC_EXTENSIONS.has(extname(entry.name).toLowerCase())) {
        files.push(absolutePath);
      }
    }
    await statInOrder(files);
  };
  await visit(docsPath, 0);
  const byPath = <T extends { path: string }>(a: T, b: T) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  result.files.sort(byPath);
  result.skipped.sort(byPath);
  return result;
}
