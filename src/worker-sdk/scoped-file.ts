import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** Why a file of a walk could not be read; each comes with a message that names no path. */
export type ScopedReadProblem = 'outside-root' | 'missing' | 'symbolic-link' | 'not-a-file' | 'too-large' | 'unreadable';

export type ScopedRead =
  | { ok: true; content: Buffer }
  | { ok: false; problem: ScopedReadProblem; message: string };

export interface ScopedReadOptions {
  /** A file larger than this is not read (problem `too-large`). */
  maxBytes?: number;
}

// O_NOFOLLOW: a link swapped in for the file after the walk listed it is refused by open itself.
// O_NONBLOCK: opening a FIFO that took a file's place must not block the worker.
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const OPEN_FLAGS = constants.O_RDONLY | NO_FOLLOW | (constants.O_NONBLOCK ?? 0);

function failure(problem: ScopedReadProblem, message: string): ScopedRead {
  return { ok: false, problem, message };
}

function problemOfError(err: unknown): ScopedRead {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return failure('missing', 'does not exist');
  if (code === 'ELOOP') return failure('symbolic-link', 'is a symbolic link; not followed');
  return failure('unreadable', `could not be read (${code ?? 'error'})`);
}

/**
 * Reads one file that a scope walk listed: `relPath` is relative to the walk's `root` (forward
 * slashes), as the walk reports it. Every file read of a walk goes through here, so the rules for
 * opening a workspace file live in one place: the path stays inside `root`, a symbolic link is
 * never followed, only a regular file is read, and `maxBytes` bounds what is read. Messages name
 * no path: the caller cites the file by `relPath`.
 */
export function readScopedFile(root: string, relPath: string, options: ScopedReadOptions = {}): ScopedRead {
  const absolute = resolve(root, relPath);
  const inside = relative(resolve(root), absolute);
  if (isAbsolute(relPath) || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
    return failure('outside-root', 'is not a file inside the scope root');
  }
  let fd: number;
  try {
    // Without O_NOFOLLOW (Windows) the link check is a separate step.
    if (NO_FOLLOW === 0 && lstatSync(absolute).isSymbolicLink()) return failure('symbolic-link', 'is a symbolic link; not followed');
    fd = openSync(absolute, OPEN_FLAGS);
  } catch (err) {
    return problemOfError(err);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return failure('not-a-file', 'is not a regular file');
    const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
    if (stats.size > maxBytes) return failure('too-large', `larger than ${maxBytes} bytes; not read`);
    const content = readFileSync(fd);
    // The file may have grown between fstat and the read.
    if (content.length > maxBytes) return failure('too-large', `larger than ${maxBytes} bytes; not read`);
    return { ok: true, content };
  } catch (err) {
    return problemOfError(err);
  } finally {
    closeSync(fd);
  }
}
