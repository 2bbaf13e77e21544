import type { LimitUsage, QueueGroup } from '../limit-buckets.js';
import { mkdir } from 'node:fs/promises';
import { shownTarget } from '../shown-target.js';
import { dirname, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import type { RunRecord } from '../../domain/run-record.js';
import { FEED_START, afterTx, type EventCursor } from '../../domain/run-event-cursor.js';
import type { OrchestratorState, StateWithoutHistory, TaskRecord } from '../../domain/orchestrator-state.js';
import { DEFAULT_FLUSH_INTERVAL_MS, type StoreOptions } from '../options.js';
import { acquirePidLock, type PidLock } from '../pid-lock.js';
import { retentionCount } from '../retention.js';
import type {
  LeaseHeld,
  CancelRequest,
  AppendCollection,
  AppendsFor,
  ClaimOptions,
  MutateResult,
  RunCounts,
  RunMutator,
  RunEventFilter,
  RunEventPage,
  RunEventsWritten,
  RunQuery,
  StateStore,
  StoreHealth,
  TaskOutcomeWrite,
} from '../types.js';
import { renewLeasesRunByRun } from '../renew-leases.js';
import { ANY_RUN_EVENTS, type DocPage } from '../types.js';
import { TransactionBatcher, type CommittedView, type Work } from './batcher.js';
import { appendedRows, appendRecords, groupAppends, listAppended } from './collections.js';
import { BUSY_TIMEOUT_MS, asStateCorrupt, openDatabase } from './connection.js';
import { startCheckpointer, type Checkpointer, type CheckpointerStats } from './checkpointer.js';
import { countDocsByCollection, deleteDoc, getDoc, insertDoc, listDocEntries, listDocPage, listDocs, putDoc } from './documents.js';
import {
  COMMUNITY_RESPONSES,
  DEPLOYED_AGENTS,
  DOCS_INDEXED,
  MILESTONES,
  RSS_DRAFTS,
  TASK_HISTORY,
  TELEMETRY,
  countItems,
} from './item-tables.js';
import * as runs from './runs.js';
import { readRunEvents } from './run-events.js';
import { SCHEMA_VERSION, migrate } from './schema.js';
import { mutateState, readState, recordTask } from './state.js';
import { SqliteWriter } from './writer-thread.js';
import { StoreLifecycle } from '../store-lifecycle.js';
import { deepFreeze } from '../deep-freeze.js';
import { walFileSync, type WalSyncPort } from './wal-sync.js';

export interface SqliteStoreOptions extends StoreOptions {
  /** Syncs the database's WAL after each COMMIT (tests inject a failing one). Default: fdatasync of `<path>-wal`. */
  walSync?: (databasePath: string) => WalSyncPort;
}

interface Session {
  /** The store's own connection: every read, including the reads of a write while its batch is built. */
  db: Database.Database;
  /** The writer thread's connection runs the statements of every batch. */
  writer: SqliteWriter;
  checkpointer: Checkpointer;
  batcher: TransactionBatcher;
  lock: PidLock;
  /**
   * The run counter and the state document (deep-frozen) as committed. Every handler call reads
   * the state, and assembling it from its tables was a sixth of a run's CPU; it is read once at
   * open and each committed batch leaves its change here. Memory is enough: the store is
   * single-owner (pid lock), so every change comes through this store.
   */
  committed: CommittedView;
  /**
   * The change feed's head: the last write stamp of run events whose batch is durable (its WAL
   * fsynced). The store's connection already sees a batch once committed; events stamped past
   * this are not handed out until their sync returned, so a power cut cannot take back an event
   * a client was sent.
   */
  events: { durableTx: number };
}

/**
 * The `sql:<path>` store: SQLite in WAL mode with normalized tables (see schema.ts).
 *
 * SQLite transactions would make claims atomic across processes, but restart recovery treats
 * every `running` run as orphaned, which would steal the runs of a live sibling process. So
 * this store is single-owner too (`exclusive`, pid lock beside the database); several
 * instances need the PostgreSQL store.
 */
export class SqliteStateStore implements StateStore {
  readonly kind = 'sql' as const;
  readonly exclusive = true;
  readonly target: string;
  readonly path: string;
  private readonly flushIntervalMs: number;
  private readonly lifecycle: StoreLifecycle<Session>;
  private readonly walSync: (databasePath: string) => WalSyncPort;
  private readonly eventListeners = new Set<(written: RunEventsWritten) => void>();

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.path = resolve(path);
    this.target = `sql:${this.path}`;
    this.lifecycle = new StoreLifecycle(this.target);
    this.flushIntervalMs = options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
    this.walSync = options.walSync ?? walFileSync;
  }

  async open(): Promise<void> {
    await this.lifecycle.open(async () => {
      await mkdir(dirname(this.path), { recursive: true });
      const lock = await acquirePidLock(`${this.path}.lock`, this.path);
      let db: Database.Database | null = null;
      let writer: SqliteWriter | null = null;
      let committed: CommittedView;
      try {
        db = openDatabase(this.path);
        migrate(db, this.path);
        committed = { db, seq: runs.committedRunSeq(db), state: deepFreeze(readState(db)), eventTx: runs.committedEventTx(db) };
        writer = await SqliteWriter.start(this.path, BUSY_TIMEOUT_MS);
      } catch (err) {
        db?.close();
        await lock.release();
        throw asStateCorrupt(err, this.path);
      }
      const checkpointer = startCheckpointer(this.path, {
        busyTimeoutMs: BUSY_TIMEOUT_MS,
        setAutocheckpoint: (pages) => writer.setAutocheckpoint(pages),
      });
      const events = { durableTx: committed.eventTx ?? 0 };
      const batcher = new TransactionBatcher(writer, committed, this.flushIntervalMs, this.walSync(this.path), this.path, (tx) => {
        events.durableTx = Math.max(events.durableTx, tx);
        for (const listener of this.eventListeners) listener(ANY_RUN_EVENTS);
      });
      return { db, writer, lock, checkpointer, batcher, committed, events };
    });
  }

  /** Commits every queued write and waits for its WAL sync, closes both connections and releases the lock. */
  close(): Promise<void> {
    return this.lifecycle.close(async (session) => {
      try {
        await session.batcher.close();
      } finally {
        await session.checkpointer.stop().catch(() => undefined);
        await session.writer.close().catch(() => undefined);
        session.db.close();
        await session.lock.release();
      }
    });
  }

  async health(): Promise<StoreHealth> {
    const session = this.lifecycle.session;
    if (session === null) return { status: 'down', target: shownTarget(this.target), detail: 'store is not open', collections: {} };
    const broken = session.batcher.broken ?? session.writer.failure;
    if (broken !== null) return { status: 'down', target: shownTarget(this.target), detail: broken.message, collections: {} };
    try {
      const { db } = session;
      const collections: Record<string, number> = {
        runs: runs.countAllRuns(db),
        taskHistory: countItems(db, TASK_HISTORY),
        communityResponses: countItems(db, COMMUNITY_RESPONSES),
        rssDrafts: countItems(db, RSS_DRAFTS),
        deployedAgents: countItems(db, DEPLOYED_AGENTS),
        docsIndexed: countItems(db, DOCS_INDEXED),
        telemetry: appendedRows(db, TELEMETRY),
        milestones: appendedRows(db, MILESTONES),
      };
      for (const [collection, n] of countDocsByCollection(db)) collections[`docs:${collection}`] = n;
      return {
        status: 'ok',
        target: shownTarget(this.target),
        detail: `SQLite ${db.prepare('SELECT sqlite_version() AS v').pluck().get() as string}, WAL, layout version ${SCHEMA_VERSION}`,
        collections,
      };
    } catch (err) {
      return { status: 'down', target: shownTarget(this.target), detail: (err as Error).message, collections: {} };
    }
  }

  /** What the checkpoint worker has done (null while the store is closed). */
  checkpointStats(): CheckpointerStats | null {
    return this.lifecycle.session?.checkpointer.stats() ?? null;
  }

  /** One process owns this store, so its leases are renewed run by run (src/store/renew-leases.ts). */
  renewLeases(ownerId: string, attempts: readonly LeaseHeld[], leaseUntil: string): Promise<string[]> {
    return renewLeasesRunByRun(this, ownerId, attempts, leaseUntil);
  }

  mutateRun(runId: string, mutate: RunMutator): Promise<MutateResult> {
    return this.write((ctx) => runs.mutateRun(ctx, runId, mutate));
  }

  /** The run and its appends are staged together, so one COMMIT. */
  mutateRunAndAppend(runId: string, mutate: RunMutator, appendsFor: AppendsFor): Promise<MutateResult> {
    return this.write((ctx) => {
      const result = runs.mutateRun(ctx, runId, mutate);
      if (result.changed) {
        for (const group of groupAppends(appendsFor(result))) appendRecords(ctx, group.collection, group.records, retentionCount(group.keep));
      }
      return result;
    });
  }

  claimNextRun(options: ClaimOptions, mutate: (run: RunRecord) => RunRecord): Promise<RunRecord | null> {
    return this.write((ctx) => runs.claimRuns(ctx, options, 1, mutate)[0] ?? null);
  }

  /** The claims are one write of the batch; each one sees the ones before it. */
  claimRuns(options: ClaimOptions, max: number, mutate: (run: RunRecord) => RunRecord): Promise<RunRecord[]> {
    return this.write((ctx) => runs.claimRuns(ctx, options, max, mutate));
  }

  /** The run's transition and the task's state change are one write: both are committed or neither. */
  finishRun(runId: string, mutate: RunMutator, task: TaskOutcomeWrite): Promise<MutateResult> {
    return this.write((ctx) => {
      const result = runs.mutateRun(ctx, runId, mutate);
      if (!result.changed) return result;
      // The handler's change rewrites only the sections it changed; the record is one history row.
      if (task.stateUpdate) mutateState(ctx, task.stateUpdate);
      recordTask(ctx, task.record);
      return result;
    });
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    return this.read((db) => runs.getRun(db, runId));
  }

  async queueGroups(now = new Date()): Promise<QueueGroup[]> {
    return this.read((db) => runs.queueGroups(db, now));
  }

  async readLimitUsage(options: ClaimOptions): Promise<LimitUsage> {
    return this.read((db) => runs.committedLimitUsage(db, options, (options.now ?? new Date()).getTime()));
  }

  async cancelRequests(runIds: readonly string[]): Promise<CancelRequest[]> {
    return this.read((db) => runs.cancelRequests(db, runIds));
  }

  async listRuns(query: RunQuery): Promise<{ items: RunRecord[]; total: number }> {
    return this.read((db) => runs.listRuns(db, query));
  }

  async readRunEvents(after: EventCursor | null, limit: number, filter: RunEventFilter = {}): Promise<RunEventPage> {
    const maxTx = this.lifecycle.readable().events.durableTx;
    const events = this.read((db) => readRunEvents(db, after ?? FEED_START, Math.max(0, Math.floor(limit)), filter, maxTx));
    return { events, heldBack: false };
  }

  async runEventsHead(): Promise<EventCursor> {
    return afterTx(this.lifecycle.readable().events.durableTx);
  }

  onRunEvents(listener: (written: RunEventsWritten) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  async countRuns(includeInternal = false): Promise<RunCounts> {
    return this.read((db) => runs.countRuns(db, includeInternal));
  }

  async pruneRuns(keep: number): Promise<number> {
    const count = retentionCount(keep);
    // Alone in its batch: the count it reads is the committed one (see runs.pruneRuns).
    return this.write((ctx) => runs.pruneRuns(ctx, count), { exclusive: true }) as Promise<number>;
  }

  /** The stored document itself, deep-frozen like the file store's: changing it throws. */
  async getState(): Promise<OrchestratorState> {
    return this.lifecycle.readable().committed.state;
  }

  /** The whole document: it is in memory, so leaving the history out would save nothing. */
  getStateWithoutHistory(): Promise<StateWithoutHistory> {
    return this.getState();
  }

  mutateState(mutate: (current: OrchestratorState) => OrchestratorState | null): Promise<OrchestratorState> {
    return this.write((ctx) => mutateState(ctx, mutate));
  }

  recordTask(record: TaskRecord): Promise<void> {
    return this.write((ctx) => recordTask(ctx, record));
  }

  async append(collection: AppendCollection, record: Record<string, unknown>, keep: number): Promise<void> {
    const count = retentionCount(keep);
    return this.write((ctx) => appendRecords(ctx, collection, [record], count));
  }

  async listAppended(
    collection: AppendCollection,
    query: { limit: number; offset?: number },
  ): Promise<{ items: Record<string, unknown>[]; total: number }> {
    return this.read((db) => listAppended(db, collection, query));
  }

  putDoc(collection: string, id: string, doc: Record<string, unknown>): Promise<void> {
    return this.write((ctx) => putDoc(ctx, collection, id, doc));
  }

  insertDoc(collection: string, id: string, doc: Record<string, unknown>): Promise<boolean> {
    // Statements of a batch run in order in one transaction: of two inserts of one id, one changes a row.
    const created = this.write((ctx) => insertDoc(ctx, collection, id, doc)) as unknown as Promise<number>;
    return created.then((changes) => changes === 1);
  }

  deleteDoc(collection: string, id: string): Promise<void> {
    return this.write((ctx) => deleteDoc(ctx, collection, id));
  }

  async getDoc(collection: string, id: string): Promise<Record<string, unknown> | null> {
    return this.read((db) => getDoc(db, collection, id));
  }

  async listDocs(collection: string): Promise<Record<string, unknown>[]> {
    return this.read((db) => listDocs(db, collection));
  }

  async listDocEntries(collection: string): Promise<Array<{ id: string; doc: Record<string, unknown> }>> {
    return this.read((db) => listDocEntries(db, collection));
  }

  async listDocPage(collection: string, page: DocPage): Promise<Array<{ id: string; doc: Record<string, unknown> }>> {
    return this.read((db) => listDocPage(db, collection, page));
  }

  private write<T>(work: Work<T>, options: { exclusive?: boolean } = {}): Promise<T> {
    let session: Session;
    try {
      session = this.lifecycle.writable();
    } catch (err) {
      return Promise.reject(err as Error);
    }
    return session.batcher.run(work, options).catch((err: unknown) => {
      throw asStateCorrupt(err, this.path);
    });
  }

  /**
   * Runs a query on the open database. A damaged page is often met only when a query reads it,
   * long after the file opened cleanly: it surfaces as a `state_corrupt` error naming the file, like
   * damage found at open, instead of a bare "database disk image is malformed".
   */
  private read<T>(query: (db: Database.Database) => T): T {
    const { db } = this.lifecycle.readable();
    try {
      return query(db);
    } catch (err) {
      throw asStateCorrupt(err, this.path);
    }
  }
}
