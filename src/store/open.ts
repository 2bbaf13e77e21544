import { isAbsolute } from 'node:path';
import { FileStateStore, type FileStoreOptions } from './file/file-state-store.js';
import type { StoreOptions } from './options.js';
import { SqliteStateStore } from './sqlite/sqlite-state-store.js';
import type { StateStore } from './types.js';

/**
 * Picks the driver for a configured state target (not yet opened):
 * an absolute path is the JSON file store, `sql:<absolute path>` the SQLite store.
 * `docdb:<key>` names the document store, which lives in PostgreSQL and is not part of this build.
 */
export function openStateStore(target: string, options: FileStoreOptions = {}): StateStore {
  if (target.startsWith('docdb:')) {
    throw new Error(
      `state target ${target} needs the PostgreSQL document store (DATABASE_URL), which this build does not ` +
        'provide yet; use a JSON file path or sql:<path> as STATE_FILE',
    );
  }
  if (target.startsWith('sql:')) {
    const path = target.slice('sql:'.length);
    if (!isAbsolute(path)) throw new Error(`state target ${target}: the SQLite path must be absolute`);
    return new SqliteStateStore(path, storeOptions(options));
  }
  if (!isAbsolute(target)) {
    throw new Error(`state target ${target} is neither an absolute file path, sql:<path> nor docdb:<key>`);
  }
  return new FileStateStore(target, options);
}

/** The options every driver takes; the file store's own (compaction, file system, lock) mean nothing to SQLite. */
function storeOptions(options: FileStoreOptions): StoreOptions {
  return { flushIntervalMs: options.flushIntervalMs, logger: options.logger };
}
