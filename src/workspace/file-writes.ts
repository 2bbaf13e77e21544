import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DomainError } from '../domain/errors.js';
import { hardLinkProblem } from '../common/hard-link.js';

/**
 * How the service writes its own files and the files the operator configured (logs, knowledge
 * packs, indexes, buffers, the digest file, deployments, work-cycle evidence): never through a
 * link. The folder they go in is checked by the caller (src/workspace/configured-folder.ts);
 * these make the last step safe: a target that is a symbolic link, or a regular file with more
 * than one link (its content may be another file's, src/workspace/hard-link.ts), is refused with
 * code `scope_outside_workspace` and the reason, never followed nor replaced; a temporary file is
 * created exclusively, so nothing planted under its name is written through.
 */

const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/** How a message names the file: "log file", "digest target file", … */
export interface WriteOptions {
  label?: string;
}

const DEFAULT_LABEL = 'file';

/** Why a file whose status is `stats` must not be written, or null. */
function targetProblem(stats: Stats): string | null {
  if (stats.isSymbolicLink()) return 'is a symbolic link';
  if (!stats.isFile()) return 'is not a regular file';
  const hardLink = hardLinkProblem(stats);
  return hardLink ? `is a ${hardLink}` : null;
}

function refused(path: string, label: string, problem: string): DomainError {
  return new DomainError('scope_outside_workspace', `${label} ${pathName(path)} ${problem}; not written`);
}

/**
 * Writes a file so readers only ever see the old or the new content: a sibling temp file is
 * created exclusively and written, then renamed over the target (rename is atomic within one
 * file system, and it replaces a name rather than writing through it). A target that is a link
 * is refused first: replacing it would still drop what the operator (or an attacker) put there
 * without a word.
 */
export async function writeFileAtomic(path: string, content: string, options: WriteOptions = {}): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const current = await lstat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  const problem = current ? targetProblem(current) : null;
  if (problem) throw refused(path, options.label ?? DEFAULT_LABEL, problem);
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o644);
    try {
      await handle.writeFile(content, 'utf8');
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

export async function writeJsonAtomic(path: string, value: unknown, options: WriteOptions = {}): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`, options);
}

/**
 * Appends to a file (a log, the digest outbox), creating it when absent. The file is opened
 * with O_NOFOLLOW and judged by the descriptor: a symbolic link, anything but a regular file, or
 * a hard-linked file is refused with `scope_outside_workspace` and nothing is written.
 */
export async function appendFileNoFollow(path: string, content: string, options: WriteOptions = {}): Promise<void> {
  const label = options.label ?? 'log file';
  await mkdir(dirname(path), { recursive: true });
  let handle;
  try {
    handle = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NO_FOLLOW | (constants.O_NONBLOCK ?? 0), 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw refused(path, label, 'is a symbolic link');
    throw err;
  }
  try {
    const problem = targetProblem(await handle.stat());
    if (problem) throw refused(path, label, problem);
    await handle.appendFile(content, 'utf8');
  } finally {
    await handle.close();
  }
}

/** The last component only: messages never carry the server's absolute path. */
function pathName(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() ?? path;
}
