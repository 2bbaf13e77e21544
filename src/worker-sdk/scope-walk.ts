import { lstatSync, readdirSync, type Stats } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ProgrammingError } from '../domain/errors.js';
import { hardLinkProblem } from '../common/hard-link.js';
import { ALL_IGNORED_KINDS, isIgnoredFolder, type IgnoredFolderKind } from './ignored-folders.js';
import { inspectWorkspacePath } from './workspace-file.js';

/** A regular file the walk kept. Read it with readScopedFile(root, path). */
export interface WalkedFile {
  /** Relative to the walk's root, with forward slashes: how a result cites the file. */
  path: string;
  name: string;
  size: number;
  mode: number;
  modifiedMs: number;
}

/**
 * Why the walk passed an entry by:
 * - `ignored-folder`: named in the ignore list (IGNORED_FOLDERS) for the kinds the walk ignores;
 * - `symbolic-link`: never followed, since its target may lie outside the scope (a start below a
 *   linked folder is one too);
 * - `hard-link`: a regular file with more than one link, never read, since it may be a file from
 *   outside the scope under a project name;
 * - `over-byte-limit` / `over-file-limit`: a wanted file beyond `maxFileBytes` / `maxFiles`;
 * - `depth-limit`: a folder deeper than `maxDepth`, not entered;
 * - `entry-limit`: where the walk stopped after `maxEntries` entries;
 * - `unreadable`: a folder that could not be listed (or a start that does not exist);
 * - `not-a-regular-file`: a FIFO, socket or device.
 * Files that `include` or the dotfile rule leave out are not wanted, not skipped: they are not reported.
 */
export type WalkSkipReason =
  | 'ignored-folder'
  | 'symbolic-link'
  | 'hard-link'
  | 'over-byte-limit'
  | 'over-file-limit'
  | 'depth-limit'
  | 'entry-limit'
  | 'unreadable'
  | 'not-a-regular-file';

export const WALK_SKIP_REASONS: readonly WalkSkipReason[] = [
  'ignored-folder',
  'symbolic-link',
  'hard-link',
  'over-byte-limit',
  'over-file-limit',
  'depth-limit',
  'entry-limit',
  'unreadable',
  'not-a-regular-file',
];

export interface WalkSkip {
  path: string;
  reason: WalkSkipReason;
  /** For `hard-link`: the reason in words, with the link count (src/workspace/hard-link.ts). */
  detail?: string;
  /** For `over-byte-limit`: the file as it would have been kept, so a lane can still judge its metadata. */
  file?: WalkedFile;
}

export interface ScopeWalkOptions {
  /** Which files the walk wants, by root-relative path and name; all when absent. */
  include?: (file: { path: string; name: string }) => boolean;
  /** Whether names starting with "." (files and folders) are walked; default true. */
  dotfiles?: boolean;
  /** Which kinds of the ignore list the walk passes by; default all of them (ALL_IGNORED_KINDS). */
  ignore?: readonly IgnoredFolderKind[];
  /** Wanted files kept at most; the rest are skipped `over-file-limit` and the walk goes on counting them. */
  maxFiles?: number;
  /** Wanted files larger than this are skipped `over-byte-limit` (and do not count towards maxFiles). */
  maxFileBytes?: number;
  /** Entries (files, folders, links) looked at before the walk stops: a huge scope cannot hang the worker. */
  maxEntries?: number;
  /** Folders deeper than this below the start (the start is depth 0) are not entered. */
  maxDepth?: number;
  /** Skips listed per reason; `skipCounts` counts them all. Default 100. */
  maxListedSkips?: number;
}

export interface ScopeWalk {
  /** Kept files, depth first in name order (by code unit, so the order is the same in every locale). */
  files: WalkedFile[];
  /** What was passed by and why, at most `maxListedSkips` per reason. */
  skipped: WalkSkip[];
  skipCounts: Record<WalkSkipReason, number>;
  /** The walk stopped at `maxEntries` before it had looked at everything. */
  stopped: boolean;
}

const DEFAULT_LISTED_SKIPS = 100;

function toPosix(path: string): string {
  return path.split(sep).join('/');
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    // Gone between the listing and the look: nothing of it can be walked.
    return null;
  }
}

/**
 * Walks the scope `start` (an absolute folder or file inside `root`) and lists its regular files
 * with what it passed by. Links are never followed, the start and the folders above it included;
 * hard-linked files are passed by; folders of the ignore list are not entered. Paths are relative to `root` (the workspace root), so a lane cites them as they
 * are and reads them with readScopedFile(root, path).
 */
export function walkScope(root: string, start: string, options: ScopeWalkOptions = {}): ScopeWalk {
  const rootPath = resolve(root);
  const startPath = resolve(start);
  const startRel = relative(rootPath, startPath);
  if (startRel === '..' || startRel.startsWith(`..${sep}`) || isAbsolute(startRel)) {
    throw new ProgrammingError('walkScope: the start of a walk must lie inside its root');
  }
  const ignore = options.ignore ?? ALL_IGNORED_KINDS;
  const dotfiles = options.dotfiles ?? true;
  const maxFiles = options.maxFiles ?? Number.POSITIVE_INFINITY;
  const maxFileBytes = options.maxFileBytes ?? Number.POSITIVE_INFINITY;
  const maxEntries = options.maxEntries ?? Number.POSITIVE_INFINITY;
  const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
  const maxListed = options.maxListedSkips ?? DEFAULT_LISTED_SKIPS;

  const walk: ScopeWalk = {
    files: [],
    skipped: [],
    skipCounts: Object.fromEntries(WALK_SKIP_REASONS.map((reason) => [reason, 0])) as Record<WalkSkipReason, number>,
    stopped: false,
  };
  const skip = (entry: WalkSkip): void => {
    walk.skipCounts[entry.reason] += 1;
    if (walk.skipCounts[entry.reason] <= maxListed) walk.skipped.push(entry);
  };
  let entries = 0;

  const consider = (path: string, name: string, stats: Stats): void => {
    if (options.include && !options.include({ path, name })) return;
    const hardLink = hardLinkProblem(stats);
    if (hardLink) {
      skip({ path, reason: 'hard-link', detail: hardLink });
      return;
    }
    const file: WalkedFile = { path, name, size: stats.size, mode: stats.mode, modifiedMs: stats.mtimeMs };
    if (stats.size > maxFileBytes) skip({ path, reason: 'over-byte-limit', file });
    else if (walk.files.length >= maxFiles) skip({ path, reason: 'over-file-limit' });
    else walk.files.push(file);
  };

  const visitFolder = (absolute: string, path: string, depth: number): void => {
    if (depth > maxDepth) {
      skip({ path, reason: 'depth-limit' });
      return;
    }
    let names: string[];
    try {
      names = readdirSync(absolute).sort();
    } catch {
      skip({ path, reason: 'unreadable' });
      return;
    }
    for (const name of names) {
      if (walk.stopped) return;
      const childPath = path === '' ? name : `${path}/${name}`;
      entries += 1;
      if (entries > maxEntries) {
        walk.stopped = true;
        skip({ path: childPath, reason: 'entry-limit' });
        return;
      }
      if (!dotfiles && name.startsWith('.')) continue;
      const childAbsolute = join(absolute, name);
      const stats = lstatOrNull(childAbsolute);
      if (stats === null) continue;
      // A link named like an ignored folder is reported as that folder: it is not the project's either way.
      if ((stats.isDirectory() || stats.isSymbolicLink()) && isIgnoredFolder(name, ignore)) skip({ path: childPath, reason: 'ignored-folder' });
      else if (stats.isSymbolicLink()) skip({ path: childPath, reason: 'symbolic-link' });
      else if (stats.isDirectory()) visitFolder(childAbsolute, childPath, depth + 1);
      else if (stats.isFile()) consider(childPath, name, stats);
      else skip({ path: childPath, reason: 'not-a-regular-file' });
    }
  };

  const startPosix = toPosix(startRel);
  const startLabel = startPosix === '' ? '.' : startPosix;
  // The folders above the start are checked too: a start below a linked folder is outside the scope's tree.
  const above = inspectWorkspacePath(rootPath, startLabel);
  const startStats = !above.ok && above.problem === 'linked-folder' ? null : lstatOrNull(startPath);
  if (!above.ok && above.problem === 'linked-folder') skip({ path: startLabel, reason: 'symbolic-link' });
  else if (startStats === null) skip({ path: startLabel, reason: 'unreadable' });
  else if (startStats.isSymbolicLink()) skip({ path: startLabel, reason: 'symbolic-link' });
  else if (startStats.isDirectory()) visitFolder(startPath, startPosix, 0);
  else if (startStats.isFile()) consider(startLabel, basename(startPath), startStats);
  else skip({ path: startLabel, reason: 'not-a-regular-file' });
  return walk;
}
