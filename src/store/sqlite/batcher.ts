import type Database from 'better-sqlite3';
import { FlushScheduler } from '../flush-scheduler.js';
import { CommitSync } from './commit-sync.js';
import type { WalSyncPort } from './wal-sync.js';

type Work = (db: Database.Database) => unknown;

interface Queued {
  work: Work;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit for SQLite: writes queue up and each batch runs inside one BEGIN IMMEDIATE
 * transaction. Every queued function runs synchronously inside the transaction (that is what
 * makes a read-modify-write atomic, also against other connections).
 *
 * The database runs with synchronous=NORMAL, so COMMIT returns after write(2) without syncing the
 * WAL; the batch's promises settle only once an `fdatasync` of the WAL that started after that
 * COMMIT has returned (CommitSync, off the event loop). The flush slot ends at COMMIT, so the next
 * batch commits while the previous one's sync runs (pipelined); settlement stays in commit order.
 * A batch that changed nothing still waits for the sync covering every earlier commit, since its
 * answers may rest on them (an idempotent re-admission reading a run committed a moment ago).
 *
 * Each item runs in its own savepoint: a mutator that throws rolls back its own changes and
 * rejects its own promise without taking the rest of the batch down.
 */
export class TransactionBatcher {
  private queue: Queued[] = [];
  private readonly scheduler: FlushScheduler;
  private readonly sync: CommitSync;
  private readonly totalChanges: Database.Statement;

  constructor(
    private readonly db: Database.Database,
    flushIntervalMs: number,
    walSync: WalSyncPort,
    /** Called when a whole batch was rolled back: what its writes left in memory is not stored. */
    private readonly onRollback: () => void = () => undefined,
  ) {
    this.scheduler = new FlushScheduler(flushIntervalMs, async () => this.commitBatch());
    this.sync = new CommitSync(walSync, db.name);
    this.totalChanges = db.prepare('SELECT total_changes()').pluck();
  }

  /** Set once a WAL sync failed: writes are refused until the store is reopened. */
  get broken(): Error | null {
    return this.sync.broken;
  }

  run<T>(work: (db: Database.Database) => T): Promise<T> {
    if (this.sync.broken !== null) return Promise.reject(this.sync.broken);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.scheduler.request();
    });
  }

  /** Commits everything queued so far and waits until it is durable; used by close. */
  async drain(): Promise<void> {
    await this.scheduler.drain();
    await this.sync.drain();
  }

  /** Drains, then releases the WAL's descriptor. */
  async close(): Promise<void> {
    try {
      await this.drain();
    } finally {
      await this.sync.close();
    }
  }

  private commitBatch(): void {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const broken = this.sync.broken;
    if (broken !== null) {
      for (const item of batch) item.reject(broken);
      return;
    }
    let outcomes: Outcome[];
    const changesBefore = this.totalChanges.get() as number;
    try {
      outcomes = this.runInTransaction(batch);
    } catch (err) {
      // Nothing of this batch was committed: every write in it fails.
      this.rollbackQuietly();
      this.onRollback();
      for (const item of batch) item.reject(err);
      return;
    }
    // Rows changed by a rolled-back savepoint count too: at worst one sync more than needed.
    const wroteRows = (this.totalChanges.get() as number) !== changesBefore;
    const durable = wroteRows ? this.sync.afterCommit() : this.sync.covered();
    durable.then(
      () => {
        batch.forEach((item, index) => {
          const outcome = outcomes[index]!;
          if (outcome.ok) item.resolve(outcome.value);
          else item.reject(outcome.error);
        });
      },
      (err: unknown) => {
        for (const item of batch) item.reject(err);
      },
    );
  }

  private runInTransaction(batch: Queued[]): Outcome[] {
    this.db.exec('BEGIN IMMEDIATE');
    const outcomes: Outcome[] = [];
    for (const item of batch) {
      const outcome = this.runInSavepoint(item.work);
      if (!this.db.inTransaction) {
        // SQLite itself rolled the transaction back (I/O error, disk full).
        throw outcome.ok ? new Error('the state database transaction was rolled back') : outcome.error;
      }
      outcomes.push(outcome);
    }
    this.db.exec('COMMIT');
    return outcomes;
  }

  private rollbackQuietly(): void {
    if (!this.db.inTransaction) return;
    try {
      this.db.exec('ROLLBACK');
    } catch {
      // The error that got us here is the one reported; a failed rollback adds nothing to it.
    }
  }

  private runInSavepoint(work: Work): Outcome {
    this.db.exec('SAVEPOINT batch_item');
    try {
      const value = work(this.db);
      this.db.exec('RELEASE batch_item');
      return { ok: true, value };
    } catch (error) {
      if (this.db.inTransaction) {
        this.db.exec('ROLLBACK TO batch_item');
        this.db.exec('RELEASE batch_item');
      }
      return { ok: false, error };
    }
  }
}
