import type Database from 'better-sqlite3';
import type { OrchestratorState } from '../../domain/orchestrator-state.js';
import { FlushScheduler } from '../flush-scheduler.js';
import { CommitSync } from './commit-sync.js';
import type { WalSyncPort } from './wal-sync.js';
import { ChangeCount, WriteBatch, type WriteContext } from './write-context.js';
import type { BatchCommitted, WriteOp } from './writer-thread.js';

export type Work<T> = (ctx: WriteContext) => T;

/** Where a batch's statements go: the writer thread (the store) or a stand-in (tests). */
export interface BatchWriter {
  commit(ops: readonly WriteOp[]): Promise<BatchCommitted>;
}

/** What the batches start from and what each committed one leaves behind. */
export interface CommittedView {
  /** The store's connection, for the reads of a write. */
  db: Database.Database;
  /** The run counter and the state document as committed. */
  seq: number;
  state: OrchestratorState;
  /** The run events' write stamp as committed (0 when absent). */
  eventTx?: number;
}

interface Queued {
  work: Work<unknown>;
  /** Runs in a batch of its own (see pruneRuns). */
  exclusive: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit for SQLite, with the statements off the event loop. Writes queue up; each batch is
 * built on the event loop (every queued write runs against a WriteContext: it reads the committed
 * rows plus what the batch staged so far, and adds its statements) and the writer thread runs
 * the batch's statements between BEGIN IMMEDIATE and COMMIT. A write that throws stages nothing
 * and rejects alone; the rest of the batch goes on.
 *
 * The flush slot ends when COMMIT returned, so the next batch is built against committed rows.
 * The database runs with synchronous=NORMAL, so COMMIT returns after write(2) without syncing the
 * WAL; the batch's promises settle only once an `fdatasync` of the WAL that started after that
 * COMMIT has returned (CommitSync, off the event loop). The next batch commits while the previous
 * one's sync runs (pipelined); settlement stays in commit order. A batch that changed nothing
 * still waits for the sync covering every earlier commit, since its answers may rest on them (an
 * idempotent re-admission reading a run committed a moment ago).
 *
 * A batch the writer could not commit (I/O error, disk full, a damaged page) is rolled back
 * whole: every write in it fails, and the run counter and state document stay as committed.
 */
export class TransactionBatcher {
  private queue: Queued[] = [];
  private readonly scheduler: FlushScheduler;
  private readonly sync: CommitSync;

  constructor(
    private readonly writer: BatchWriter,
    private readonly committed: CommittedView,
    flushIntervalMs: number,
    walSync: WalSyncPort,
    databasePath: string,
    /** Called with a batch's last stamp once a batch whose writes appended run events is durable, in commit order. */
    private readonly onEventsDurable: (tx: number) => void = () => undefined,
  ) {
    this.scheduler = new FlushScheduler(flushIntervalMs, () => this.commitBatch());
    this.sync = new CommitSync(walSync, databasePath);
  }

  /** Set once a WAL sync failed: writes are refused until the store is reopened. */
  get broken(): Error | null {
    return this.sync.broken;
  }

  run<T>(work: Work<T>, options: { exclusive?: boolean } = {}): Promise<T> {
    if (this.sync.broken !== null) return Promise.reject(this.sync.broken);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, exclusive: options.exclusive === true, resolve: resolve as (value: unknown) => void, reject });
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

  /** The writes of the next batch: up to the first exclusive one, or that one alone. */
  private takeBatch(): Queued[] {
    const cut = this.queue.findIndex((item) => item.exclusive);
    const size = cut === -1 ? this.queue.length : Math.max(cut, 1);
    const batch = this.queue.splice(0, size);
    if (this.queue.length > 0) this.scheduler.request();
    return batch;
  }

  private async commitBatch(): Promise<void> {
    const items = this.takeBatch();
    if (items.length === 0) return;
    const broken = this.sync.broken;
    if (broken !== null) {
      for (const item of items) item.reject(broken);
      return;
    }
    const batch = new WriteBatch(this.committed.db, this.committed.seq, this.committed.state, this.committed.eventTx ?? 0);
    const outcomes = items.map((item) => this.stage(batch, item.work));
    let committed: BatchCommitted;
    try {
      committed = batch.ops.length === 0 ? { changes: [], wroteRows: false } : await this.writer.commit(batch.statements());
    } catch (err) {
      // Nothing of this batch was committed: every write in it fails.
      for (const item of items) item.reject(err);
      return;
    }
    this.committed.seq = batch.seq;
    this.committed.state = batch.state;
    this.committed.eventTx = batch.tx;
    const durable = committed.wroteRows ? this.sync.afterCommit() : this.sync.covered();
    durable.then(
      () => {
        if (batch.stampedEvents) this.onEventsDurable(batch.tx);
        items.forEach((item, index) => {
          const outcome = outcomes[index]!;
          if (!outcome.ok) item.reject(outcome.error);
          else if (outcome.value instanceof ChangeCount) item.resolve(committed.changes[outcome.value.index] ?? 0);
          else item.resolve(outcome.value);
        });
      },
      (err: unknown) => {
        for (const item of items) item.reject(err);
      },
    );
  }

  private stage(batch: WriteBatch, work: Work<unknown>): Outcome {
    const ctx = batch.begin();
    try {
      const value = work(ctx);
      ctx.keep();
      return { ok: true, value };
    } catch (error) {
      return { ok: false, error };
    }
  }
}
