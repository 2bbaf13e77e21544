import type Database from 'better-sqlite3';
import { FlushScheduler } from '../flush-scheduler.js';

type Work = (db: Database.Database) => unknown;

interface Queued {
  work: Work;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit for SQLite: writes queue up and each batch runs inside one BEGIN IMMEDIATE
 * transaction, so the batch costs one WAL fsync instead of one per write. Every queued
 * function runs synchronously inside the transaction (that is what makes a read-modify-write
 * atomic, also against other connections) and each promise settles only after COMMIT.
 *
 * Each item runs in its own savepoint: a mutator that throws rolls back its own changes and
 * rejects its own promise without taking the rest of the batch down.
 */
export class TransactionBatcher {
  private queue: Queued[] = [];
  private readonly scheduler: FlushScheduler;

  constructor(
    private readonly db: Database.Database,
    flushIntervalMs: number,
  ) {
    this.scheduler = new FlushScheduler(flushIntervalMs, async () => this.commitBatch());
  }

  run<T>(work: (db: Database.Database) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.scheduler.request();
    });
  }

  /** Commits everything queued so far; used by close. */
  drain(): Promise<void> {
    return this.scheduler.drain();
  }

  private commitBatch(): void {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    let outcomes: Outcome[];
    try {
      outcomes = this.runInTransaction(batch);
    } catch (err) {
      // Nothing of this batch was committed: every write in it fails.
      this.rollbackQuietly();
      for (const item of batch) item.reject(err);
      return;
    }
    batch.forEach((item, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
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
