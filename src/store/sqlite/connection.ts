import type Database from 'better-sqlite3';
import { lazyPackage } from '../../common/lazy-package.js';
import { DomainError } from '../../domain/errors.js';
import { stateCorrupt } from '../types.js';

/** How long a statement waits for a lock held by another connection before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

/** The driver, loaded when a SQLite store opens (a start on another store never loads it). */
const loadDriver = lazyPackage<typeof Database>('better-sqlite3');

/**
 * Opens the database with the settings the store relies on: WAL (readers never block the writer)
 * and synchronous=NORMAL. With NORMAL a COMMIT returns after writing the WAL, without an fsync
 * (SQLite still syncs the WAL before each checkpoint, the database file after it, and the WAL
 * header when the WAL is reused, so the file stays consistent). Durability of a COMMIT comes
 * from the batcher: it acknowledges a batch only after an fdatasync of the WAL that started after
 * the COMMIT, run off the event loop (see batcher.ts and commit-sync.ts).
 */
export function openDatabase(path: string): Database.Database {
  const db = new (loadDriver())(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') {
      throw new DomainError('unavailable', `state database ${path} could not switch to WAL (journal_mode is ${String(mode)})`);
    }
    db.pragma('synchronous = NORMAL');
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Statement journals in memory (the writer thread's connection is opened with the same
    // settings, writer-thread.ts). When each write ran in a savepoint of its batch's transaction,
    // SQLite spilled that journal to a temp file past 64 KiB: about 40 pwrite calls per admission
    // (measured: 20,000 admissions, 296,000 pwrites with the default, 18,000 with this). Such a
    // journal only undoes a failed statement; crash safety is the WAL's, so nothing durable
    // depends on that file.
    db.pragma('temp_store = MEMORY');
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * A file that is not a database, or a damaged one, stops start-up with a `state_corrupt` error
 * instead of a raw SQLite error (and SQLite never rewrites a file it cannot read).
 */
export function asStateCorrupt(err: unknown, path: string): unknown {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'))) {
    return stateCorrupt(
      `state database ${path} cannot be read (${(err as Error).message}). No file was modified; ` +
        'restore it from a backup or move it away before starting again.',
    );
  }
  return err;
}
