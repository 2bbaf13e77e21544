import { open, type FileHandle } from 'node:fs/promises';

/**
 * Makes the database's WAL durable: one `fdatasync` of the `-wal` file per call. A port so tests
 * can hold a sync open, finish it or fail it at will.
 */
export interface WalSyncPort {
  /** Returns once every byte written to the WAL before the call started is on disk. */
  datasync(): Promise<void>;
  /** Releases the file descriptor (if one was opened). */
  close(): Promise<void>;
}

/**
 * The real port: its own read-only descriptor of `<database>-wal`, opened at the first sync
 * (after a COMMIT, so the WAL exists), synced through node:fs/promises so the `fdatasync` runs on
 * the libuv threadpool instead of blocking the event loop.
 *
 * An fsync acts on the file, not on the descriptor: it flushes what SQLite wrote through its own
 * descriptor. That needs the same inode for as long as the store is open, which holds: SQLite
 * unlinks the WAL only when the last connection closes (it needs an exclusive lock on the database
 * file for that, and every open WAL-mode connection, the store's included, holds a shared one), and
 * the store writes through one connection it owns until close (pid lock); other processes only
 * ever open read connections. Opening and closing this descriptor takes and drops no lock: SQLite
 * keeps its POSIX locks on the database and `-shm` files, never on the WAL (closing any
 * descriptor of a locked file would drop that process's locks on it, so this must never open
 * those two files).
 */
export function walFileSync(databasePath: string): WalSyncPort {
  const walPath = `${databasePath}-wal`;
  let handle: Promise<FileHandle> | null = null;
  return {
    async datasync() {
      handle ??= open(walPath, 'r');
      await (await handle).datasync();
    },
    async close() {
      if (handle === null) return;
      const opened = await handle.catch(() => null);
      handle = null;
      await opened?.close();
    },
  };
}
