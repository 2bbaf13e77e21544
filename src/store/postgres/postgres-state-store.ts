import type { LimitUsage, QueueGroup } from '../limit-buckets.js';
import type pg from 'pg';
import { DomainError } from '../../domain/errors.js';
import type { RunRecord } from '../../domain/run-record.js';
import { FEED_START, type EventCursor } from '../../domain/run-event-cursor.js';
import { appendsEvents } from '../run-event-stamps.js';
import type { OrchestratorState, StateWithoutHistory, TaskRecord } from '../../domain/orchestrator-state.js';
import { silentLogger, type StoreOptions } from '../options.js';
import { retentionCount } from '../retention.js';
import { StoreLifecycle } from '../store-lifecycle.js';
import type {
  CancelRequest,
  LeaseHeld,
  AppendsFor,
  AppendCollection,
  ClaimOptions,
  HealthOptions,
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
import { runEventsWrittenBy, type DocPage } from '../types.js';
import { admitNewRuns } from './admit-new-runs.js';
import { finishKnownRuns } from './finish-known-runs.js';
import { KnownRuns } from './known-runs.js';
import { appendRecord, listAppended } from './append.js';
import { claimNextRun, claimRuns, limitUsage, queueGroups } from './claim-next-run.js';
import { createPool, parsePostgresUrl, type PostgresTarget } from './connection.js';
import { asUnavailable } from './connection-loss.js';
import { deleteDoc, getDoc, insertDoc, listDocEntries, listDocPage, listDocs, putDoc } from './documents.js';
import { collectionCounts, serverVersion } from './health.js';
import { applyMigrations } from './migrate.js';
import { GroupCommit } from './group-commit.js';
import { SharedRead } from './shared-read.js';
import { finishRun, mutateRun, mutateRunAndAppend } from './mutate-run.js';
import { finishRuns, mutateRunsAndAppend, type RunFinish, type RunWrite } from './run-batches.js';
import { pruneRuns } from './prune-runs.js';
import { cancelRequests, countRuns, getRun, listRuns } from './read-runs.js';
import { renewLeases } from './renew-leases.js';
import { readRunEvents, runEventsHead } from './run-events.js';
import { ensureStateDocument, foldTaskCounts, getState, getStateWithoutHistory, mutateState, recordTask } from './state.js';

export const DEFAULT_STATE_KEY = 'default';

/** A run write's events for the listeners: none when it appended none. */
const appendedBy = (result: MutateResult): RunEventsWritten | null =>
  result.changed && result.after !== null && appendsEvents(result.before, result.after) ? runEventsWrittenBy(result) : null;

/** A claim appends `started` events; it leaves no run ready and takes slots instead of freeing them. */
const CLAIMED: RunEventsWritten = Object.freeze({ readyRuns: false, runsLeftRunning: false });

export interface PostgresStoreOptions extends StoreOptions {
  /** Which OrchestratorState document this instance works on (`docdb:<key>`); runs and documents are shared. */
  stateKey?: string;
  /** Connections per instance. */
  poolSize?: number;
}

interface Session {
  pool: pg.Pool;
  version: number;
  /** Writes under way, so close() can let them commit before the pool ends. */
  inFlight: Set<Promise<unknown>>;
  /** Run writes with appends (admissions) arriving together, committed together. */
  runWrites: GroupCommit<RunWrite, MutateResult>;
  /** Attempts' final writes arriving together, committed together. */
  finishes: GroupCommit<RunFinish, MutateResult>;
  /** Folds the processed-task count deltas into their column now and then (state.ts). */
  foldTimer: NodeJS.Timeout;
}

/** Most rows one group-committed statement carries; more wait for the next batch. */
const MAX_BATCH = 64;
/**
 * One admission batch and one finish batch committing at a time, as the PostgreSQL admission
 * ceiling groups its inserts: what arrives during a commit forms the next batch. Every batch
 * costs the database its statements and a commit whatever its size, so larger batches are less
 * work per run; a lone write still goes at once. Three and two in flight made batches a third to
 * a quarter smaller and cost PostgreSQL 10-30% more CPU per run (docs/performance.md, "PostgreSQL,
 * one batch in flight").
 */
const RUN_WRITE_BATCHES_IN_FLIGHT = 1;
const FINISH_BATCHES_IN_FLIGHT = 1;
/**
 * How often the processed-task count deltas are folded: a state read (one per claim's worth of
 * attempts) sums at most about this long's finishes. One statement per instance a second.
 */
const FOLD_INTERVAL_MS = 1_000;

/**
 * The scale-out store: PostgreSQL through a connection pool, shared by every instance that
 * points at the same database and schema. Nothing it relies on lives in process memory:
 * admission is the runs table's unique key, claims are `FOR UPDATE SKIP LOCKED` under a
 * lease, every read-modify-write holds the row lock. It is therefore not `exclusive`: restart
 * recovery takes over only runs whose lease has expired.
 */
export class PostgresStateStore implements StateStore {
  readonly kind = 'postgres' as const;
  readonly exclusive = false;
  readonly target: string;
  readonly stateKey: string;
  /** Where the database is (the event channel opens its own listening connection there). */
  readonly connection: PostgresTarget;
  private readonly poolSize: number;
  private readonly logger;
  private readonly lifecycle: StoreLifecycle<Session>;
  private readonly eventListeners = new Set<(written: RunEventsWritten) => void>();
  /** Runs this instance wrote running, so that their final write can skip locking and reading them (known-runs.ts). */
  private readonly known = new KnownRuns();
  private readonly stateRead = new SharedRead(() => this.read((pool) => getState(pool, this.stateKey)));
  private readonly stateReadWithoutHistory = new SharedRead(() => this.read((pool) => getStateWithoutHistory(pool, this.stateKey)));

  constructor(databaseUrl: string, options: PostgresStoreOptions = {}) {
    this.connection = parsePostgresUrl(databaseUrl);
    this.stateKey = options.stateKey ?? DEFAULT_STATE_KEY;
    this.target =
      options.stateKey === undefined ? `postgres:${this.connection.display}` : `docdb:${this.stateKey}`;
    this.poolSize = options.poolSize ?? 10;
    this.logger = options.logger ?? silentLogger;
    this.lifecycle = new StoreLifecycle(this.target);
  }

  /** The schema the tables live in (the URL's `schema` parameter, default public). */
  get schema(): string {
    return this.connection.schema;
  }

  async open(): Promise<void> {
    await this.lifecycle.open(async () => {
      const pool = createPool(this.connection, this.poolSize, (err) =>
        this.logger.warn({ store: this.connection.display, cause: err.message }, 'idle PostgreSQL connection failed'),
      );
      try {
        const version = await applyMigrations(pool, this.connection.schema);
        await ensureStateDocument(pool, this.stateKey);
        const inFlight = new Set<Promise<unknown>>();
        const foldTimer = setInterval(() => this.foldCounts(pool, inFlight), FOLD_INTERVAL_MS);
        foldTimer.unref();
        return { pool, version, inFlight, foldTimer, ...this.batchers(pool) };
      } catch (err) {
        await pool.end().catch(() => undefined);
        throw new DomainError('unavailable', `state database ${this.connection.display} cannot be opened: ${(err as Error).message}`, undefined, {
          cause: err,
        });
      }
    });
  }

  /** Whether the last fold failed: an outage is logged once when it starts and once when it ends, not every interval. */
  private foldFailing = false;

  /** One fold, counted in flight; a failure (the database away) waits for the next interval. */
  private foldCounts(pool: pg.Pool, inFlight: Set<Promise<unknown>>): void {
    const fold = foldTaskCounts(pool, this.stateKey).then(
      () => {
        if (!this.foldFailing) return;
        this.foldFailing = false;
        this.logger.info({ store: this.connection.display }, 'task count folds succeed again');
      },
      (err: unknown) => {
        if (this.foldFailing) return;
        this.foldFailing = true;
        this.logger.warn({ store: this.connection.display, cause: (err as Error).message }, 'task count fold failed; the next ones take what is left (further failures are not logged until one succeeds)');
      },
    );
    inFlight.add(fold);
    void fold.finally(() => inFlight.delete(fold));
  }

  private batchers(pool: pg.Pool): Pick<Session, 'runWrites' | 'finishes'> {
    return {
      runWrites: new GroupCommit<RunWrite, MutateResult>({
        pool,
        // New runs (admissions of new keys) in one statement that is its own commit; the rest in the batch's transaction.
        tryFirst: (items) => admitNewRuns(pool, items),
        runBatch: mutateRunsAndAppend,
        runOne: (item) => mutateRunAndAppend(pool, item.runId, item.mutate, item.appendsFor),
        keyOf: (item) => item.runId,
        maxBatch: MAX_BATCH,
        maxInFlight: RUN_WRITE_BATCHES_IN_FLIGHT,
      }),
      finishes: new GroupCommit<RunFinish, MutateResult>({
        pool,
        // Runs as this instance left them in one statement that is its own commit; the rest in the batch's transaction.
        tryFirst: (items) => finishKnownRuns(pool, this.stateKey, items, this.known),
        runBatch: (client, items) => finishRuns(client, this.stateKey, items),
        runOne: (item) => finishRun(pool, this.stateKey, item.runId, item.mutate, item.task),
        keyOf: (item) => item.runId,
        maxBatch: MAX_BATCH,
        maxInFlight: FINISH_BATCHES_IN_FLIGHT,
      }),
    };
  }

  close(): Promise<void> {
    return this.lifecycle.close(async (session) => {
      clearInterval(session.foldTimer);
      await Promise.allSettled([...session.inFlight]);
      await session.pool.end();
    });
  }

  async health(options?: HealthOptions): Promise<StoreHealth> {
    const session = this.lifecycle.session;
    if (session === null) return { status: 'down', target: this.target, detail: 'store is not open', collections: {} };
    try {
      const [version, collections] = await Promise.all([
        serverVersion(session.pool),
        // COUNT(*) walks each table: only when asked for (not by the incident sweep of every instance).
        options?.counts === false ? {} : collectionCounts(session.pool, this.stateKey),
      ]);
      return {
        status: 'ok',
        target: this.target,
        detail: `PostgreSQL ${version}, schema ${this.connection.schema}, layout version ${session.version}, shared by instances`,
        collections,
      };
    } catch (err) {
      return { status: 'down', target: this.target, detail: (err as Error).message, collections: {} };
    }
  }

  mutateRun(runId: string, mutate: RunMutator): Promise<MutateResult> {
    this.known.forget(runId);
    return this.announced(this.write((pool) => mutateRun(pool, runId, mutate)), appendedBy);
  }

  /** Group-committed with the other run writes that arrive at the same time (docs/persistence.md). */
  mutateRunAndAppend(runId: string, mutate: RunMutator, appendsFor: AppendsFor): Promise<MutateResult> {
    const written = this.batched((session) => session.runWrites.submit({ runId, mutate, appendsFor })).then((outcome) => {
      if (outcome.changed && outcome.after !== null) this.known.remember(outcome.after);
      return outcome;
    });
    return this.announced(written, appendedBy);
  }

  claimNextRun(options: ClaimOptions, mutate: (run: RunRecord) => RunRecord): Promise<RunRecord | null> {
    const claimed = this.write((pool) => claimNextRun(pool, options, mutate)).then((run) => {
      if (run !== null) this.known.remember(run);
      return run;
    });
    return this.announced(claimed, (run) => (run !== null ? CLAIMED : null));
  }

  claimRuns(options: ClaimOptions, max: number, mutate: (run: RunRecord) => RunRecord): Promise<RunRecord[]> {
    const claimed = this.write((pool) => claimRuns(pool, options, max, mutate)).then((runs) => {
      for (const run of runs) this.known.remember(run);
      return runs;
    });
    return this.announced(claimed, (runs) => (runs.length > 0 ? CLAIMED : null));
  }

  /** Group-committed with the other final writes that arrive at the same time. */
  finishRun(runId: string, mutate: RunMutator, task: TaskOutcomeWrite): Promise<MutateResult> {
    return this.announced(this.batched((session) => session.finishes.submit({ runId, mutate, task })), appendedBy);
  }

  readRunEvents(after: EventCursor | null, limit: number, filter: RunEventFilter = {}): Promise<RunEventPage> {
    return this.read((pool) => readRunEvents(pool, after ?? FEED_START, Math.max(0, Math.floor(limit)), filter));
  }

  runEventsHead(): Promise<EventCursor> {
    return this.read((pool) => runEventsHead(pool));
  }

  onRunEvents(listener: (written: RunEventsWritten) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** Tells the run-event listeners once a committed write appended events (claims always do: `started`), and what it changed for a runner. */
  private announced<T>(write: Promise<T>, written: (value: T) => RunEventsWritten | null): Promise<T> {
    return write.then((value) => {
      if (this.eventListeners.size === 0) return value;
      const change = written(value);
      if (change !== null) for (const listener of this.eventListeners) listener(change);
      return value;
    });
  }

  getRun(runId: string): Promise<RunRecord | null> {
    return this.read((pool) => getRun(pool, runId));
  }

  queueGroups(now = new Date()): Promise<QueueGroup[]> {
    return this.read((pool) => queueGroups(pool, now));
  }

  readLimitUsage(options: ClaimOptions): Promise<LimitUsage> {
    return this.read((pool) => limitUsage(pool, options, (options.now ?? new Date()).getTime()));
  }

  renewLeases(ownerId: string, attempts: readonly LeaseHeld[], leaseUntil: string): Promise<string[]> {
    // The records change under the remembered copies: their final writes take the locking way.
    for (const held of attempts) this.known.forget(held.runId);
    return this.write((pool) => renewLeases(pool, ownerId, attempts, leaseUntil));
  }

  cancelRequests(runIds: readonly string[]): Promise<CancelRequest[]> {
    return this.read((pool) => cancelRequests(pool, runIds));
  }

  listRuns(query: RunQuery): Promise<{ items: RunRecord[]; total: number }> {
    return this.read((pool) => listRuns(pool, query));
  }

  countRuns(includeInternal = false): Promise<RunCounts> {
    return this.read((pool) => countRuns(pool, includeInternal));
  }

  pruneRuns(keep: number): Promise<number> {
    const count = retentionCount(keep);
    return this.write((pool) => pruneRuns(pool, count));
  }

  getState(): Promise<OrchestratorState> {
    return this.stateRead.get();
  }

  getStateWithoutHistory(): Promise<StateWithoutHistory> {
    return this.stateReadWithoutHistory.get();
  }

  mutateState(mutate: (current: OrchestratorState) => OrchestratorState | null): Promise<OrchestratorState> {
    return this.write((pool) => mutateState(pool, this.stateKey, mutate));
  }

  recordTask(record: TaskRecord): Promise<void> {
    return this.write((pool) => recordTask(pool, this.stateKey, record));
  }

  append(collection: AppendCollection, record: Record<string, unknown>, keep: number): Promise<void> {
    const count = retentionCount(keep);
    return this.write((pool) => appendRecord(pool, collection, record, count));
  }

  listAppended(
    collection: AppendCollection,
    query: { limit: number; offset?: number },
  ): Promise<{ items: Record<string, unknown>[]; total: number }> {
    return this.read((pool) => listAppended(pool, collection, query));
  }

  putDoc(collection: string, id: string, doc: Record<string, unknown>): Promise<void> {
    return this.write((pool) => putDoc(pool, collection, id, doc));
  }

  insertDoc(collection: string, id: string, doc: Record<string, unknown>): Promise<boolean> {
    return this.write((pool) => insertDoc(pool, collection, id, doc));
  }

  deleteDoc(collection: string, id: string): Promise<void> {
    return this.write((pool) => deleteDoc(pool, collection, id));
  }

  getDoc(collection: string, id: string): Promise<Record<string, unknown> | null> {
    return this.read((pool) => getDoc(pool, collection, id));
  }

  listDocs(collection: string): Promise<Record<string, unknown>[]> {
    return this.read((pool) => listDocs(pool, collection));
  }

  listDocEntries(collection: string): Promise<Array<{ id: string; doc: Record<string, unknown> }>> {
    return this.read((pool) => listDocEntries(pool, collection));
  }

  listDocPage(collection: string, page: DocPage): Promise<Array<{ id: string; doc: Record<string, unknown> }>> {
    return this.read((pool) => listDocPage(pool, collection, page));
  }

  /** The pool for work outside the port (the persistence export streams rows through it). */
  pool(): pg.Pool {
    return this.lifecycle.readable().pool;
  }

  private write<T>(work: (pool: pg.Pool) => Promise<T>): Promise<T> {
    return this.batched((session) => work(session.pool));
  }

  /** A write through the open session, counted in flight until it settles, its errors named as the store's. */
  private batched<T>(work: (session: Session) => Promise<T>): Promise<T> {
    let session: Session;
    try {
      session = this.lifecycle.writable();
    } catch (err) {
      return Promise.reject(err as Error);
    }
    const pending = work(session).catch((err: unknown) => {
      throw asUnavailable(err, this.connection.display);
    });
    session.inFlight.add(pending);
    const forget = () => session.inFlight.delete(pending);
    pending.then(forget, forget);
    return pending;
  }

  private read<T>(work: (pool: pg.Pool) => Promise<T>): Promise<T> {
    try {
      return work(this.lifecycle.readable().pool).catch((err: unknown) => {
        throw asUnavailable(err, this.connection.display);
      });
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }
}
