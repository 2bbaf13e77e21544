import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { isAbsolute, join, posix, resolve, win32 } from 'node:path';
import { hardLinkReason, isHardLinked } from '../common/hard-link.js';

/**
 * The one way a lane opens a file of the workspace (or of another root it was handed, such as the
 * docs folder): reads, looks, listings and writes. The rule, for every path relative to its root:
 *
 * - it stays inside the root lexically (no absolute path, no `..` that climbs out);
 * - no symbolic link is followed anywhere on it: not the file, not a folder above it. Links that
 *   end inside the root are refused too: following one safely means resolving and re-checking
 *   its target, which can change between the check and the open, and a project file reached
 *   through a link can always be named by its own path instead;
 * - only a regular file is read, and only one whose link count is 1: a hard link may be another
 *   file's contents (one outside the workspace, on the same file system) under a project name;
 * - what is checked is what is opened: the file is opened with O_NOFOLLOW and O_NONBLOCK (a FIFO
 *   cannot block the worker) and judged by fstat of the descriptor, and on Linux the folder above
 *   it is opened first and every name is resolved through that descriptor
 *   (`/proc/self/fd/<fd>/<name>`), after checking where the descriptor really is. A folder swapped
 *   for a link after the check therefore cannot redirect the open, the write, the rename or the
 *   removal. Elsewhere the folder is checked with lstat and realpath right before the call.
 *
 * A refusal reads nothing (or writes nothing) and names the path relative to its root, never the
 * server's absolute path.
 */

/** Why a path of a root was not opened, looked at or written. */
export type WorkspaceFileProblem =
  /** Absolute, or climbs out of the root with `..`. */
  | 'outside-root'
  /** Nothing there (or a file where a folder is expected). */
  | 'missing'
  /** The file itself is a symbolic link. */
  | 'symbolic-link'
  /** A folder on the way to it is a symbolic link. */
  | 'linked-folder'
  /** A regular file with more than one link. */
  | 'hard-link'
  /** A folder, FIFO, socket or device where a regular file is wanted (or a file where a folder is). */
  | 'not-a-file'
  | 'too-large'
  /** The folder opened is not where its path says: it was moved or swapped while it was opened. */
  | 'moved'
  /** A write found something at a path it must create. */
  | 'exists'
  /** The file system refused (permissions, I/O); `code` has its error code. */
  | 'unreadable'
  | 'unwritable';

export interface WorkspaceFileRefusal {
  ok: false;
  /** The path relative to the root, forward slashes ("." for the root). */
  path: string;
  problem: WorkspaceFileProblem;
  /** Why, without the file's own path: for callers that cite the path themselves. */
  reason: string;
  /** `<path> <reason>`: the whole sentence a result can carry. */
  message: string;
  /** The file system's error code, when the refusal is its (EACCES, ENOTEMPTY, …). */
  code?: string;
  /** For `too-large`: the file's size in bytes. */
  size?: number;
}

export type WorkspaceFileRead = { ok: true; path: string; content: Buffer; size: number; mode: number; modifiedMs: number } | WorkspaceFileRefusal;
export type WorkspaceTextRead = { ok: true; path: string; text: string; size: number } | WorkspaceFileRefusal;
export type WorkspacePathLook = { ok: true; path: string; kind: 'file' | 'folder'; size: number; mode: number; modifiedMs: number } | WorkspaceFileRefusal;
export type WorkspaceWrite = { ok: true; path: string } | WorkspaceFileRefusal;

export interface WorkspaceReadOptions {
  /** A file larger than this is refused (`too-large`), nothing read. */
  maxBytes?: number;
  /** Read only the first this many bytes; a larger file is read in part, not refused. */
  headBytes?: number;
}

/** One entry of a listed folder, judged without following it. */
export interface WorkspaceEntry {
  name: string;
  /** Relative to the root, forward slashes. */
  path: string;
  /** `file` is a regular file with one link; a regular file with more is `hard-link`. */
  kind: 'file' | 'folder' | 'symbolic-link' | 'hard-link' | 'other';
  size: number;
}

export type WorkspaceListing = { ok: true; path: string; entries: WorkspaceEntry[] } | WorkspaceFileRefusal;

const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const NON_BLOCK = constants.O_NONBLOCK ?? 0;
const DIRECTORY = constants.O_DIRECTORY ?? 0;
const READ_FLAGS = constants.O_RDONLY | NO_FOLLOW | NON_BLOCK;
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW;

/**
 * Whether folders are pinned by descriptor: Linux, with /proc mounted, where `/proc/self/fd/<fd>`
 * names the very folder a descriptor holds and `readlink` of it says where that folder is.
 */
const PINNED = process.platform === 'linux' && DIRECTORY !== 0 && NO_FOLLOW !== 0 && existsSync('/proc/self/fd');

const LINK_CODES = new Set(['ELOOP', 'EMLINK']);
const MISSING_CODES = new Set(['ENOENT', 'ENOTDIR']);

/** A path of a root, split and checked lexically. */
interface Located {
  realRoot: string;
  /** The normalized relative path, forward slashes, "." for the root. */
  path: string;
  parts: string[];
}

function refusal(path: string, problem: WorkspaceFileProblem, reason: string, code?: string): WorkspaceFileRefusal {
  return { ok: false, path, problem, reason, message: `${path} ${reason}`, ...(code === undefined ? {} : { code }) };
}

function codeOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? 'error';
}

function joinParts(parts: readonly string[]): string {
  return parts.length === 0 ? '.' : parts.join('/');
}

function locate(root: string, relPath: string): Located | WorkspaceFileRefusal {
  // On Windows a backslash separates folders; elsewhere it is a character of a name.
  const shown = process.platform === 'win32' ? relPath.split('\\').join('/') : relPath;
  if (relPath.includes('\0')) return refusal(shown.replace(/\0/g, '\\0'), 'outside-root', 'contains a NUL byte; not opened');
  if (isAbsolute(relPath) || win32.isAbsolute(relPath)) return refusal(shown, 'outside-root', 'is absolute; paths are relative to their root');
  const normalized = posix.normalize(shown === '' ? '.' : shown).replace(/\/+$/, '') || '.';
  if (normalized === '..' || normalized.startsWith('../')) return refusal(shown, 'outside-root', 'leads outside its root; not opened');
  const parts = normalized === '.' ? [] : normalized.split('/');
  let realRoot: string;
  try {
    realRoot = realpathSync(resolve(root));
  } catch (err) {
    return refusal(normalized, 'missing', `cannot be opened: its root does not exist (${codeOf(err)})`, codeOf(err));
  }
  return { realRoot, path: normalized, parts };
}

/**
 * Checks, from the root down, that each of `parts` is a real folder (not a link). Missing ones are
 * `missing` unless `allowMissing`, when the number of folders that exist is answered.
 */
function checkFolders(loc: Located, parts: readonly string[], allowMissing = false): number | WorkspaceFileRefusal {
  for (let i = 0; i < parts.length; i += 1) {
    const prefix = joinParts(parts.slice(0, i + 1));
    let stats: Stats;
    try {
      stats = lstatSync(join(loc.realRoot, ...parts.slice(0, i + 1)));
    } catch (err) {
      if (MISSING_CODES.has(codeOf(err))) {
        if (allowMissing) return i;
        return refusal(loc.path, 'missing', i === parts.length - 1 && prefix === loc.path ? 'does not exist' : `does not exist (no folder ${prefix})`);
      }
      return refusal(loc.path, 'unreadable', `cannot be looked at (${codeOf(err)} at ${prefix})`, codeOf(err));
    }
    if (stats.isSymbolicLink()) {
      return refusal(loc.path, 'linked-folder', `passes through ${prefix}, a symbolic link; links are not followed`);
    }
    if (!stats.isDirectory()) return refusal(loc.path, 'missing', `does not exist (${prefix} is not a folder)`);
  }
  return parts.length;
}

/** A folder of the root held open (Linux) or checked (elsewhere); names inside it resolve through `at`. */
interface Folder {
  /** Where a name of the folder is reached: `/proc/self/fd/<fd>` when pinned, else the folder's path. */
  prefix: string;
  fd: number | null;
  /** The folder's real path, as it must be. */
  real: string;
}

function at(folder: Folder, name: string): string {
  return `${folder.prefix}/${name}`;
}

function closeFolder(folder: Folder): void {
  if (folder.fd !== null) closeSync(folder.fd);
}

/** Is the folder still where it must be? (Elsewhere than Linux the check a moment before a call.) */
function folderInPlace(loc: Located, folder: Folder, parts: readonly string[]): boolean {
  if (folder.fd !== null) return readlinkSync(`/proc/self/fd/${folder.fd}`) === folder.real;
  try {
    return realpathSync(join(loc.realRoot, ...parts)) === folder.real;
  } catch {
    return false;
  }
}

/** Opens (Linux) or checks the folder `parts` of the root, every folder on its way a real one. */
function openFolder(loc: Located, parts: readonly string[]): Folder | WorkspaceFileRefusal {
  const checked = checkFolders(loc, parts);
  if (typeof checked !== 'number') return checked;
  // From the root's real path: the root itself is trusted, links and all; what is below it is not.
  const real = join(loc.realRoot, ...parts);
  const moved = refusal(loc.path, 'moved', `could not be opened: ${joinParts(parts)} was moved or replaced by a link while it was opened; not followed`);
  if (!PINNED) {
    const folder: Folder = { prefix: real, fd: null, real };
    return folderInPlace(loc, folder, parts) ? folder : moved;
  }
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | DIRECTORY | NO_FOLLOW);
  } catch (err) {
    if (LINK_CODES.has(codeOf(err))) return refusal(loc.path, 'linked-folder', `passes through ${joinParts(parts)}, a symbolic link; links are not followed`);
    if (MISSING_CODES.has(codeOf(err))) return refusal(loc.path, 'missing', 'does not exist');
    return refusal(loc.path, 'unreadable', `cannot be opened (${codeOf(err)})`, codeOf(err));
  }
  const folder: Folder = { prefix: `/proc/self/fd/${fd}`, fd, real };
  // The descriptor is the folder whatever happens to its path now; this says which folder it is.
  if (!folderInPlace(loc, folder, parts)) {
    closeSync(fd);
    return moved;
  }
  return folder;
}

function lastName(loc: Located): string | null {
  return loc.parts.length === 0 ? null : loc.parts[loc.parts.length - 1]!;
}

function parentParts(loc: Located): string[] {
  return loc.parts.slice(0, -1);
}

/** What an fstat or lstat of a wanted regular file says against reading it, or null. */
function fileProblem(path: string, stats: Stats): WorkspaceFileRefusal | null {
  if (stats.isSymbolicLink()) return refusal(path, 'symbolic-link', 'is a symbolic link; links are not followed');
  if (!stats.isFile()) return refusal(path, 'not-a-file', stats.isDirectory() ? 'is a folder, not a file' : 'is not a regular file (a FIFO, socket or device)');
  if (isHardLinked(stats)) return refusal(path, 'hard-link', `is a ${hardLinkReason(stats.nlink)}; not opened`);
  return null;
}

function openProblem(path: string, err: unknown, reading: boolean): WorkspaceFileRefusal {
  const code = codeOf(err);
  if (LINK_CODES.has(code)) return refusal(path, 'symbolic-link', 'is a symbolic link; links are not followed');
  if (MISSING_CODES.has(code)) return refusal(path, 'missing', 'does not exist');
  if (code === 'EEXIST') return refusal(path, 'exists', 'already exists; not overwritten', code);
  if (code === 'EISDIR') return refusal(path, 'not-a-file', 'is a folder, not a file', code);
  return reading ? refusal(path, 'unreadable', `could not be read (${code})`, code) : refusal(path, 'unwritable', `could not be written (${code})`, code);
}

/**
 * Reads one file of `root`: `relPath` relative to it. Refused, with nothing read: a path outside
 * the root, a symbolic link (the file or a folder above it), anything but a regular file, a hard
 * link, a file over `maxBytes`. `headBytes` reads only the start of a larger file.
 */
export function readWorkspaceFile(root: string, relPath: string, options: WorkspaceReadOptions = {}): WorkspaceFileRead {
  return inParent(root, relPath, 'read', (loc, folder, name) => {
    let fd: number;
    try {
      // Without O_NOFOLLOW (Windows) the link check is a separate step.
      if (NO_FOLLOW === 0 && lstatSync(at(folder, name)).isSymbolicLink()) return refusal(loc.path, 'symbolic-link', 'is a symbolic link; links are not followed');
      fd = openSync(at(folder, name), READ_FLAGS);
    } catch (err) {
      return openProblem(loc.path, err, true);
    }
    try {
      const stats = fstatSync(fd);
      const problem = fileProblem(loc.path, stats);
      if (problem) return problem;
      // Not pinned: the folder is checked again now that the file is open, and the file must be
      // the one its name holds there.
      if (folder.fd === null) {
        const named = lstatSync(at(folder, name));
        if (!folderInPlace(loc, folder, parentParts(loc)) || named.ino !== stats.ino || named.dev !== stats.dev) {
          return refusal(loc.path, 'moved', 'was moved or replaced while it was opened; not read');
        }
      }
      const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
      if (options.headBytes === undefined && stats.size > maxBytes) return { ...refusal(loc.path, 'too-large', `is larger than ${maxBytes} bytes; not read`), size: stats.size };
      let content: Buffer;
      if (options.headBytes !== undefined) {
        const buffer = Buffer.alloc(Math.min(options.headBytes, Math.max(stats.size, 0)));
        let length = 0;
        while (length < buffer.length) {
          const got = readSync(fd, buffer, length, buffer.length - length, length);
          if (got === 0) break;
          length += got;
        }
        content = buffer.subarray(0, length);
      } else {
        content = readFileSync(fd);
        // The file may have grown between fstat and the read.
        if (content.length > maxBytes) return { ...refusal(loc.path, 'too-large', `is larger than ${maxBytes} bytes; not read`), size: content.length };
      }
      return { ok: true, path: loc.path, content, size: stats.size, mode: stats.mode, modifiedMs: stats.mtimeMs };
    } catch (err) {
      return openProblem(loc.path, err, true);
    } finally {
      closeSync(fd);
    }
  });
}

/** readWorkspaceFile, decoded as UTF-8. */
export function readWorkspaceText(root: string, relPath: string, options: WorkspaceReadOptions = {}): WorkspaceTextRead {
  const read = readWorkspaceFile(root, relPath, options);
  if (!read.ok) return read;
  return { ok: true, path: read.path, text: read.content.toString('utf8'), size: read.size };
}

/**
 * What `relPath` is, by lstat, without opening it: a real folder, or a regular file with one link
 * (else refused as readWorkspaceFile would refuse it). It decides what a lane names or looks for
 * (a lockfile present, an import that resolves); whatever is then read is opened with
 * readWorkspaceFile, which checks again.
 */
export function inspectWorkspacePath(root: string, relPath: string): WorkspacePathLook {
  const loc = locate(root, relPath);
  if ('ok' in loc) return loc;
  const name = lastName(loc);
  if (name === null) {
    const stats = lstatSync(loc.realRoot);
    return { ok: true, path: '.', kind: 'folder', size: stats.size, mode: stats.mode, modifiedMs: stats.mtimeMs };
  }
  const checked = checkFolders(loc, parentParts(loc));
  if (typeof checked !== 'number') return checked;
  let stats: Stats;
  try {
    stats = lstatSync(join(loc.realRoot, ...loc.parts));
  } catch (err) {
    return openProblem(loc.path, err, true);
  }
  if (stats.isDirectory()) return { ok: true, path: loc.path, kind: 'folder', size: stats.size, mode: stats.mode, modifiedMs: stats.mtimeMs };
  const problem = fileProblem(loc.path, stats);
  if (problem) return problem;
  return { ok: true, path: loc.path, kind: 'file', size: stats.size, mode: stats.mode, modifiedMs: stats.mtimeMs };
}

function kindOf(stats: Stats): WorkspaceEntry['kind'] {
  if (stats.isSymbolicLink()) return 'symbolic-link';
  if (stats.isDirectory()) return 'folder';
  if (stats.isFile()) return isHardLinked(stats) ? 'hard-link' : 'file';
  return 'other';
}

/**
 * The entries of the folder `relDir` of `root`, in name order (by code unit), each judged by lstat
 * through the opened folder: nothing is followed, nothing read. A folder reached through a link
 * is refused.
 */
export function listWorkspaceFolder(root: string, relDir: string): WorkspaceListing {
  const loc = locate(root, relDir);
  if ('ok' in loc) return loc;
  const folder = openFolder(loc, loc.parts);
  if ('ok' in folder) return folder;
  try {
    let names: string[];
    try {
      names = readdirSync(folder.prefix).sort();
    } catch (err) {
      return openProblem(loc.path, err, true);
    }
    const entries: WorkspaceEntry[] = [];
    for (const name of names) {
      let stats: Stats;
      try {
        stats = lstatSync(at(folder, name));
      } catch {
        continue; // gone between the listing and the look
      }
      entries.push({ name, path: loc.path === '.' ? name : `${loc.path}/${name}`, kind: kindOf(stats), size: stats.size });
    }
    return { ok: true, path: loc.path, entries };
  } finally {
    closeFolder(folder);
  }
}

/**
 * Runs `act` on the opened parent folder of `relPath` (a read or a write of the name in it), or
 * answers why it cannot; what `act` throws is answered as the read's or the write's problem.
 */
function inParent<T>(
  root: string,
  relPath: string,
  purpose: 'read' | 'write',
  act: (loc: Located, folder: Folder, name: string) => T | WorkspaceFileRefusal,
): T | WorkspaceFileRefusal {
  const loc = locate(root, relPath);
  if ('ok' in loc) return loc;
  const name = lastName(loc);
  if (name === null) return refusal(loc.path, 'not-a-file', 'is the root folder, not a file');
  const folder = openFolder(loc, parentParts(loc));
  if ('ok' in folder) return folder;
  try {
    return act(loc, folder, name);
  } catch (err) {
    return openProblem(loc.path, err, purpose === 'read');
  } finally {
    closeFolder(folder);
  }
}

/** What is at `name` of the folder now, by lstat: null when nothing. */
function entryAt(folder: Folder, name: string): Stats | null {
  try {
    return lstatSync(at(folder, name));
  } catch (err) {
    if (MISSING_CODES.has(codeOf(err))) return null;
    throw err;
  }
}

/** Writes all of `content` to `fd`, then sets the mode when one is given (the umask may have narrowed it). */
function writeAll(fd: number, content: Buffer, mode: number | null): void {
  let written = 0;
  while (written < content.length) written += writeSync(fd, content, written, content.length - written);
  if (mode !== null) fchmodSync(fd, mode);
}

/** Creates a file that must not exist yet, in a folder that is checked and held (O_EXCL, no links followed). */
function createIn(folder: Folder, name: string, content: Buffer, mode: number | null): void {
  const fd = openSync(at(folder, name), CREATE_FLAGS, mode ?? 0o644);
  try {
    writeAll(fd, content, mode);
  } catch (err) {
    closeSync(fd);
    unlinkSync(at(folder, name));
    throw err;
  }
  closeSync(fd);
}

/**
 * Creates `relPath` with `content`; refused (`exists`) when anything is at that name, a link
 * included, and when a folder above it is a link or missing (ensureWorkspaceFolder makes them).
 */
export function createWorkspaceFile(root: string, relPath: string, content: Buffer, mode: number | null = null): WorkspaceWrite {
  return inParent<WorkspaceWrite>(root, relPath, 'write', (loc, folder, name) => {
    createIn(folder, name, content, mode);
    return { ok: true, path: loc.path };
  });
}

/**
 * Replaces the regular file `relPath` by `content`, atomically: a temp file created exclusively
 * next to it, then renamed over it, so a reader sees the old file or the new one. The rename
 * replaces the name, never writes through it. Refused when the name holds a link or anything but
 * a regular file, or when a folder above it is a link.
 */
export function replaceWorkspaceFile(root: string, relPath: string, content: Buffer, mode: number | null = null): WorkspaceWrite {
  return inParent<WorkspaceWrite>(root, relPath, 'write', (loc, folder, name) => {
    const current = entryAt(folder, name);
    if (current === null) return refusal(loc.path, 'missing', 'does not exist; nothing to replace');
    const problem = fileProblem(loc.path, current);
    if (problem && problem.problem !== 'hard-link') return problem;
    const temp = `.${name}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    createIn(folder, temp, content, mode);
    try {
      renameSync(at(folder, temp), at(folder, name));
    } catch (err) {
      unlinkSync(at(folder, temp));
      throw err;
    }
    return { ok: true, path: loc.path };
  });
}

/** Removes the regular file `relPath`; a link, a folder or anything else at the name is refused. */
export function removeWorkspaceFile(root: string, relPath: string): WorkspaceWrite {
  return inParent<WorkspaceWrite>(root, relPath, 'write', (loc, folder, name) => {
    const current = entryAt(folder, name);
    if (current === null) return refusal(loc.path, 'missing', 'does not exist; nothing to remove');
    if (current.isSymbolicLink() || !current.isFile()) return fileProblem(loc.path, current) ?? refusal(loc.path, 'not-a-file', 'is not a regular file');
    unlinkSync(at(folder, name));
    return { ok: true, path: loc.path };
  });
}

/** Removes the empty folder `relDir`; a folder that is not empty is refused with code ENOTEMPTY. */
export function removeWorkspaceFolder(root: string, relDir: string): WorkspaceWrite {
  return inParent<WorkspaceWrite>(root, relDir, 'write', (loc, folder, name) => {
    const current = entryAt(folder, name);
    if (current === null) return { ok: true, path: loc.path };
    if (!current.isDirectory()) return refusal(loc.path, 'not-a-file', current.isSymbolicLink() ? 'is a symbolic link, not a folder' : 'is not a folder');
    try {
      rmdirSync(at(folder, name));
    } catch (err) {
      if (codeOf(err) === 'ENOTEMPTY' || codeOf(err) === 'EEXIST') return refusal(loc.path, 'unwritable', 'is not empty; left in place', 'ENOTEMPTY');
      throw err;
    }
    return { ok: true, path: loc.path };
  });
}

/**
 * Makes the folder `relDir` of `root` and every missing folder above it, one at a time inside
 * its checked parent (never through a link). Answers the folders it created, shallowest first,
 * relative to the root, so a rollback can remove them.
 */
export function ensureWorkspaceFolder(root: string, relDir: string): { ok: true; path: string; created: string[] } | WorkspaceFileRefusal {
  const loc = locate(root, relDir);
  if ('ok' in loc) return loc;
  const existing = checkFolders(loc, loc.parts, true);
  if (typeof existing !== 'number') return existing;
  const created: string[] = [];
  for (let i = existing; i < loc.parts.length; i += 1) {
    const made = inParent<WorkspaceWrite>(root, joinParts(loc.parts.slice(0, i + 1)), 'write', (sub, folder, name) => {
      mkdirSync(at(folder, name), 0o755);
      return { ok: true, path: sub.path };
    });
    if (!made.ok) return { ...made, path: loc.path, message: `${loc.path} could not be made: ${made.message}` };
    created.push(made.path);
  }
  return { ok: true, path: loc.path, created };
}

/** Why a file of a walk could not be read; each comes with a message that names no path. */
export type ScopedReadProblem = WorkspaceFileProblem;

export type ScopedRead = { ok: true; content: Buffer } | { ok: false; problem: ScopedReadProblem; message: string };

export interface ScopedReadOptions {
  /** A file larger than this is not read (problem `too-large`). */
  maxBytes?: number;
}

/**
 * readWorkspaceFile for a file a scope walk listed, answering in the walk's terms: `message` is
 * the reason without the file's path, since the lane cites the file by `relPath` itself.
 */
export function readScopedFile(root: string, relPath: string, options: ScopedReadOptions = {}): ScopedRead {
  const read = readWorkspaceFile(root, relPath, { maxBytes: options.maxBytes });
  return read.ok ? { ok: true, content: read.content } : { ok: false, problem: read.problem, message: read.reason };
}
