import { nodeStoreFs, writeFileSyncedOn } from './store-fs.js';

/**
 * Makes a rename or file creation inside `dir` durable. On Linux a rename is only guaranteed to
 * survive power loss once the directory itself is fsynced.
 */
export function fsyncDirectory(dir: string): Promise<void> {
  return nodeStoreFs.syncDirectory(dir);
}

/** Writes `data` to a new file (replacing one left over) and fsyncs it before closing. */
export function writeFileSynced(path: string, data: string): Promise<void> {
  return writeFileSyncedOn(nodeStoreFs, path, data);
}

export function isErrnoCode(err: unknown, ...codes: string[]): boolean {
  return typeof err === 'object' && err !== null && codes.includes((err as NodeJS.ErrnoException).code ?? '');
}
