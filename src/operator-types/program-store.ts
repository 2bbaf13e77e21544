import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AppConfig } from '../config/types.js';
import { listWorkspaceFolder, readWorkspaceFile } from '../worker-sdk/workspace-file.js';

/**
 * The content-addressed snapshots of operator task types' programs (docs/task-types.md
 * "Versions and reload"): at load and at each reload every type's folder is copied, as it is
 * then, to `<snapshots>/<sha256 of its files>/`; a run records that digest at admission and its
 * attempts run the program from the snapshot, so an edit or a removal of the folder after the
 * admission changes nothing an admitted run executes.
 */

/** The folder of snapshots, beside the state (file and SQLite stores) or in the logs folder (PostgreSQL). */
export const SNAPSHOTS_FOLDER = 'task-type-snapshots';
/** At most this many files in a type's folder: a program, not a data set. */
export const MAX_PROGRAM_FILES = 2000;
/** At most this many bytes in a type's folder, all files together. */
export const MAX_PROGRAM_BYTES = 64 * 1024 * 1024;
/** A temporary folder left by a write that died is removed by the next prune once this old. */
const STALE_TEMP_MS = 10 * 60 * 1000;
const DIGEST = /^[0-9a-f]{64}$/;
const TEMP_PREFIX = '.tmp-';

export type SnapshotConfig = Pick<AppConfig, 'stateTarget' | 'logsDir'>;

export function snapshotsRoot(config: SnapshotConfig): string {
  const target = config.stateTarget;
  if (target.startsWith('sql:')) return join(dirname(target.slice(4)), SNAPSHOTS_FOLDER);
  if (target.startsWith('/')) return join(dirname(target), SNAPSHOTS_FOLDER);
  return join(config.logsDir, SNAPSHOTS_FOLDER);
}

export const snapshotPath = (root: string, digest: string): string => join(root, digest);

interface ProgramFile {
  /** Relative to the type's folder, forward slashes. */
  path: string;
  content: Buffer;
  executable: boolean;
}

export type ProgramFolder = { digest: string; files: ProgramFile[] } | { problem: string };

/**
 * Every file of a type's folder, read as the workspace helpers read (src/worker-sdk/workspace-file.ts):
 * no symbolic link followed, no hard link, nothing but regular files and folders. A folder
 * holding anything else is refused: its program could reach outside what is snapshotted.
 */
export function readProgramFolder(directory: string): ProgramFolder {
  const files: ProgramFile[] = [];
  let bytes = 0;
  const walk = (rel: string): string | null => {
    const listing = listWorkspaceFolder(directory, rel);
    if (!listing.ok) return listing.message;
    for (const entry of listing.entries) {
      if (entry.kind === 'folder') {
        const problem = walk(entry.path);
        if (problem) return problem;
        continue;
      }
      if (entry.kind === 'symbolic-link') return `${entry.path} is a symbolic link: a task type's folder holds its files itself (copy the file in)`;
      if (entry.kind === 'hard-link') return `${entry.path} is a hard link: a task type's folder holds its files itself (copy the file in)`;
      if (entry.kind !== 'file') return `${entry.path} is not a regular file or folder`;
      const read = readWorkspaceFile(directory, entry.path, { maxBytes: MAX_PROGRAM_BYTES - bytes });
      if (!read.ok) return read.problem === 'too-large' ? `the folder holds more than ${MAX_PROGRAM_BYTES} bytes` : read.message;
      bytes += read.content.length;
      files.push({ path: entry.path, content: read.content, executable: (read.mode & 0o111) !== 0 });
      if (files.length > MAX_PROGRAM_FILES) return `the folder holds more than ${MAX_PROGRAM_FILES} files`;
    }
    return null;
  };
  const problem = walk('.');
  if (problem) return { problem };
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${file.path}\0${file.executable ? 'x' : '-'}\0${file.content.length}\0`);
    hash.update(file.content);
  }
  return { digest: hash.digest('hex'), files };
}

/** Writes the snapshot in a temporary folder of `root` and renames it into place: it exists whole or not at all. */
function writeSnapshot(root: string, digest: string, files: readonly ProgramFile[]): void {
  mkdirSync(root, { recursive: true });
  const temp = join(root, `${TEMP_PREFIX}${digest.slice(0, 12)}-${randomBytes(6).toString('hex')}`);
  mkdirSync(temp, { mode: 0o755 });
  try {
    for (const file of files) {
      const target = join(temp, ...file.path.split('/'));
      mkdirSync(dirname(target), { recursive: true, mode: 0o755 });
      writeFileSync(target, file.content, { flag: 'wx' });
      // Read-only: a snapshot is never edited in place (its name is its content).
      chmodSync(target, file.executable ? 0o555 : 0o444);
    }
    try {
      renameSync(temp, snapshotPath(root, digest));
    } catch (err) {
      // Another process of this host wrote the same snapshot first: same content, keep theirs.
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'EEXIST' && code !== 'ENOTEMPTY') || !existsSync(snapshotPath(root, digest))) throw err;
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/**
 * The snapshot of `digest`, written from `directory` when it is not there yet and the folder
 * holds that very program; else why it cannot be had here (the folder is gone, holds another
 * program, or cannot be snapshotted).
 */
export function ensureSnapshot(root: string, directory: string, digest: string): { path: string } | { problem: string } {
  const path = snapshotPath(root, digest);
  if (existsSync(path)) return { path };
  const read = readProgramFolder(directory);
  if ('problem' in read) return { problem: `its folder cannot be snapshotted: ${read.problem}` };
  if (read.digest !== digest) return { problem: `its folder now holds another program (${read.digest.slice(0, 12)})` };
  try {
    writeSnapshot(root, digest, read.files);
  } catch (err) {
    return { problem: `the snapshot could not be written: ${(err as Error).message}` };
  }
  return { path };
}

/**
 * Removes the snapshots whose digest is not in `keep` (the current types' and those of runs not
 * finished) and temporary folders a dead write left; answers the digests removed.
 */
export function pruneSnapshots(root: string, keep: ReadonlySet<string>, now = Date.now()): string[] {
  if (!existsSync(root)) return [];
  const removed: string[] = [];
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    if (DIGEST.test(name) && !keep.has(name)) {
      rmSync(path, { recursive: true, force: true });
      removed.push(name);
    } else if (name.startsWith(TEMP_PREFIX)) {
      try {
        if (now - statSync(path).mtimeMs > STALE_TEMP_MS) rmSync(path, { recursive: true, force: true });
      } catch {
        // gone meanwhile
      }
    }
  }
  return removed;
}
