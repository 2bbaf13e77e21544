import { isAbsolute } from 'node:path';
import { configError } from '../config/errors.js';
import { FileStateStore, type FileStoreOptions } from './file/file-state-store.js';
import type { StoreOptions } from './options.js';
import { PostgresStateStore } from './postgres/postgres-state-store.js';
import { SqliteStateStore } from './sqlite/sqlite-state-store.js';
import { POSTGRES_TARGET, isPostgresUrl } from '../config/store-targets.js';
import type { StateStore } from './types.js';

/**
 * Picks the driver for a configured state target (not yet opened): an absolute path is the
 * JSON file store, `sql:<absolute path>` the SQLite store, `postgres` the PostgreSQL store at
 * DATABASE_URL, and `docdb:<key>` the same PostgreSQL store keeping its OrchestratorState
 * document under `<key>`.
 */
export function openStateStore(target: string, options: FileStoreOptions & { databaseUrl?: string | null } = {}): StateStore {
  const { databaseUrl, ...fileOptions } = options;
  if (target === POSTGRES_TARGET || target.startsWith('docdb:')) {
    if (!isPostgresUrl(databaseUrl)) {
      throw configError(`state target ${target} needs DATABASE_URL=postgres://… (the document store lives in PostgreSQL)`);
    }
    if (target === POSTGRES_TARGET) return new PostgresStateStore(databaseUrl, storeOptions(fileOptions));
    const stateKey = target.slice('docdb:'.length);
    if (stateKey === '') throw configError('state target docdb: needs a key (docdb:<key>)');
    return new PostgresStateStore(databaseUrl, { ...storeOptions(fileOptions), stateKey });
  }
  if (target.startsWith('sql:')) {
    const path = target.slice('sql:'.length);
    if (!isAbsolute(path)) throw configError(`state target ${target}: the SQLite path must be absolute`);
    return new SqliteStateStore(path, storeOptions(fileOptions));
  }
  if (!isAbsolute(target)) {
    throw configError(`state target ${target} is neither an absolute file path, sql:<path>, docdb:<key> nor postgres`);
  }
  return new FileStateStore(target, fileOptions);
}

/** The options every driver takes; the file store's own (compaction, file system, lock) mean nothing to SQLite or PostgreSQL. */
function storeOptions(options: FileStoreOptions): StoreOptions {
  return { flushIntervalMs: options.flushIntervalMs, logger: options.logger };
}
