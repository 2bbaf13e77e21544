import { open } from 'node:fs/promises';

/**
 * Makes a rename or file creation inside `dir` durable. On Linux a rename is only guaranteed to
 * survive power loss once the directory itself is fsynced.
 */
export async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes `data` to a new file (replacing one left over) and fsyncs it before closing. */
export async function writeFileSynced(path: string, data: string): Promise<void> {
  const handle = await open(path, 'w');
  try {
    await handle.writeFile(data, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export function isErrnoCode(err: unknown, ...codes: string[]): boolean {
  return typeof err === 'object' && err !== null && codes.includes((err as NodeJS.ErrnoException).code ?? '');
}
