import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { DomainError, ProgrammingError } from '../../domain/errors.js';
import { BACKSTOP_AUTOCHECKPOINT_PAGES, WAL_SIZE_LIMIT_BYTES } from './checkpointer.js';

/** One statement of a batch: its SQL and its parameters. */
export type WriteOp = readonly [sql: string, params: readonly SqlParam[]];
export type SqlParam = string | number | null;

export interface BatchCommitted {
  /** `changes` of every statement, in order (a prune reports how many runs it deleted). */
  changes: number[];
  /** Whether any row changed: a batch that wrote nothing needs no WAL sync of its own. */
  wroteRows: boolean;
}

/**
 * The writer: its own connection, which runs every statement of a batch between BEGIN IMMEDIATE
 * and COMMIT. Source text (an `eval` worker), so it runs the same from the compiled service and
 * from the tests; its modules come by dynamic import, which works whether the eval is taken as
 * CommonJS or as an ES module (a process started with --input-type=module). The connection's settings match connection.ts (WAL, synchronous NORMAL,
 * journals in memory) plus the checkpoint backstop: this is the connection whose COMMITs would
 * run SQLite's own checkpoints.
 */
const WORKER_SOURCE = `
(async () => {
const { parentPort, workerData } = await import('node:worker_threads');
let db;
try {
  const Database = (await import(workerData.driver)).default;
  db = new Database(workerData.path, { fileMustExist: true, timeout: workerData.busyTimeoutMs });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
  db.pragma('temp_store = MEMORY');
  db.pragma('wal_autocheckpoint = ' + workerData.autocheckpointPages);
  db.pragma('journal_size_limit = ' + workerData.journalSizeLimit);
  parentPort.postMessage({ ready: true });
} catch (err) {
  parentPort.postMessage({ ready: false, error: { message: String(err && err.message || err), code: err && err.code } });
}
let prepared = [];
const totalChanges = db ? db.prepare('SELECT total_changes()').pluck() : null;
parentPort.on('message', (message) => {
  if (message.close) {
    if (db) db.close();
    parentPort.close();
    return;
  }
  if (message.autocheckpoint !== undefined) {
    db.pragma('wal_autocheckpoint = ' + message.autocheckpoint);
    return;
  }
  const before = totalChanges.get();
  const changes = [];
  try {
    if (message.reset) prepared = [];
    for (const [id, sql] of message.defs) prepared[id] = db.prepare(sql);
    db.exec('BEGIN IMMEDIATE');
    for (const [id, params] of message.ops) changes.push(prepared[id].run(...params).changes);
    db.exec('COMMIT');
    parentPort.postMessage({ id: message.id, ok: true, changes, wroteRows: totalChanges.get() !== before });
  } catch (err) {
    if (db.inTransaction) { try { db.exec('ROLLBACK'); } catch {} }
    parentPort.postMessage({ id: message.id, ok: false, error: { message: String(err && err.message || err), code: err && err.code } });
  }
});
})();
`;

type Reply =
  | { id: number; ok: true; changes: number[]; wroteRows: boolean }
  | { id: number; ok: false; error: { message: string; code?: string } };

/**
 * An error the writer thread reported, as this thread would have met it: a SQLite error becomes
 * the driver's own SqliteError with its code (corruption is recognized by it, see connection.ts);
 * anything else broke in the thread's own code.
 */
function writerError(error: { message: string; code?: string }): Error {
  if (error.code?.startsWith('SQLITE_')) return new Database.SqliteError(error.message, error.code);
  // The thread opens a database the main thread has already opened and migrated, and runs the
  // store's own statements: any other failure is a fault of that code (a parameter it bound).
  return new ProgrammingError(`the SQLite writer thread failed outside SQLite: ${error.message}`);
}

/**
 * The main thread's side of the writer thread. The statements of a write (index updates, the
 * append tables' triggers and trims, BEGIN and COMMIT with their WAL writes) were about 40% of the
 * event loop's time per admission; here they run on their own thread while the event loop serves
 * requests. One batch is in flight at a time (the batcher waits for each COMMIT).
 */
export class SqliteWriter {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: BatchCommitted) => void; reject: (err: Error) => void }>();
  private stopped: Error | null = null;
  /**
   * Statement numbers: a batch names each statement by number, the thread prepares each SQL text
   * once (the texts are a few hundred bytes, copied into every message otherwise).
   */
  private readonly statementIds = new Map<string, number>();
  private resetStatements = false;
  private readonly exited: Promise<void>;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: Reply) => {
      const waiter = this.pending.get(reply.id);
      if (waiter === undefined) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.ok) waiter.resolve({ changes: reply.changes, wroteRows: reply.wroteRows });
      else waiter.reject(writerError(reply.error));
    });
    this.exited = new Promise((resolve) => {
      worker.on('exit', (code) => {
        this.fail(new DomainError('unavailable', `the SQLite writer thread stopped (exit code ${code})`));
        resolve();
      });
    });
    worker.on('error', (err) => this.fail(err));
  }

  /** Starts the thread and opens its connection; rejects with SQLite's error when that fails. */
  static async start(path: string, busyTimeoutMs: number): Promise<SqliteWriter> {
    const driver = pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driver, path, busyTimeoutMs, autocheckpointPages: BACKSTOP_AUTOCHECKPOINT_PAGES, journalSizeLimit: WAL_SIZE_LIMIT_BYTES },
    });
    const ready = await new Promise<{ ready: boolean; error?: { message: string; code?: string } }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    if (!ready.ready) {
      await worker.terminate();
      throw writerError(ready.error ?? { message: 'the SQLite writer thread did not open the database' });
    }
    worker.unref();
    return new SqliteWriter(worker);
  }

  /** Why the thread stopped, or null while it runs. */
  get failure(): Error | null {
    return this.stopped;
  }

  /** Runs the statements in one transaction; resolves once COMMIT returned (not yet synced). */
  commit(ops: readonly WriteOp[]): Promise<BatchCommitted> {
    if (this.stopped !== null) return Promise.reject(this.stopped);
    const id = this.nextId++;
    // Held while a batch is in flight: an acknowledged write must not be cut off by the process
    // running out of other work.
    this.worker.ref();
    const defs: Array<[number, string]> = [];
    const wire = ops.map(([sql, params]) => {
      let n = this.statementIds.get(sql);
      if (n === undefined) {
        n = this.statementIds.size;
        this.statementIds.set(sql, n);
        defs.push([n, sql]);
      }
      return [n, params];
    });
    const reset = this.resetStatements;
    this.resetStatements = false;
    return new Promise<BatchCommitted>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, reset, defs, ops: wire });
    }).catch((err: unknown) => {
      // The thread may not have prepared this batch's new statements: both sides start over.
      this.statementIds.clear();
      this.resetStatements = true;
      throw err;
    });
  }

  /** SQLite's own checkpoint threshold on the writer's connection (the checkpoint worker's backstop). */
  setAutocheckpoint(pages: number): void {
    if (this.stopped === null) this.worker.postMessage({ autocheckpoint: pages });
  }

  /** Closes the connection and ends the thread (after the batch in flight, which the batcher drained). */
  async close(): Promise<void> {
    if (this.stopped !== null) {
      await this.exited;
      return;
    }
    this.worker.ref();
    this.worker.postMessage({ close: true });
    await this.exited;
  }

  private fail(err: Error): void {
    this.stopped ??= err;
    for (const waiter of this.pending.values()) waiter.reject(this.stopped);
    this.pending.clear();
  }
}
