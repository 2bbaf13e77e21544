import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DomainError } from '../domain/errors.js';

/**
 * How the service writes its own files (logs, knowledge packs, indexes, buffers): never through
 * a link. The folder they go in is checked by the caller (src/workspace/configured-folder.ts);
 * these make the last step safe: a file that is (or becomes) a symbolic link is refused, not
 * followed, and a temporary file is created exclusively, so nothing planted under its name is
 * written through.
 */

const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Writes a file so readers only ever see the old or the new content: a sibling temp file is
 * created exclusively and written, then renamed over the target (rename is atomic within one
 * file system, and it replaces a link at the target's name rather than writing through it).
 */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
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

export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Appends to a log file, creating it when absent; a file that is a symbolic link, not a regular
 * file, or hard-linked elsewhere (more than one link) is refused with `scope_outside_workspace`.
 */
export async function appendFileNoFollow(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  let handle;
  try {
    handle = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NO_FOLLOW | (constants.O_NONBLOCK ?? 0), 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new DomainError('scope_outside_workspace', `log file ${pathName(path)} is a symbolic link; not written`);
    throw err;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile() || stats.nlink > 1) throw new DomainError('scope_outside_workspace', `log file ${pathName(path)} is not a regular file of its own; not written`);
    await handle.appendFile(content, 'utf8');
  } finally {
    await handle.close();
  }
}

/** The last component only: messages never carry the server's absolute path. */
function pathName(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() ?? path;
}
