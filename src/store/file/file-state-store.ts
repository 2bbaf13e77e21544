import { fairnessKey, pickFairly } from '../fair-claims.js';
import { claimGate, rateLookbackMs, withBucketHolds, runningByTypeOf, type LimitUsage, type QueueGroup } from '../limit-buckets.js';
import { nodeStoreFs, type StoreFs } from '../store-fs.js';
import { shownTarget } from '../shown-target.js';
import { dirname, resolve } from 'node:path';
import type { RunRecord } from '../../domain/run-record.js';
import { approvalSettlementOf } from '../../domain/approval-refusal.js';
import { FEED_START, afterTx, type EventCursor } from '../../domain/run-event-cursor.js';
import type { OrchestratorState, StateWithoutHistory, TaskRecord } from '../../domain/orchestrator-state.js';
import { ProgrammingError } from '../../domain/errors.js';
import { FlushScheduler } from '../flush-scheduler.js';
import { DEFAULT_FLUSH_INTERVAL_MS, silentLogger, type StoreLogger, type StoreOptions } from '../options.js';
import { acquirePidLock, type PidLock } from '../pid-lock.js';
import { boundState, withTaskRecord } from '../../domain/orchestrator-state.js';
import { retentionCount } from '../retention.js';
import {
  PRUNABLE_STATUSES,
  addToRunCounts,
  cancelRequestOf,
  blockedTypes,
  emptyRunCounts,
  matchesRunQuery,
  pastCursor,
  normalizeRunQuery,
  storedRun,
} from '../run-rules.js';
import { ANY_RUN_EVENTS, stateCorrupt } from '../types.js';
import { renewLeasesRunByRun } from '../renew-leases.js';
import { appendsEvents, firstInCursorOrder, runEventsPast, stampNewEvents } from '../run-event-stamps.js';
import type {
  CancelRequest,
  AppendCollection,
  RunEventFilter,
  RunEventPage,
  RunEventsWritten,
  StoredRunEvent,
  AppendsFor,
  ClaimOptions,
  DocPage,
  LeaseHeld,
  MutateResult,
  RunCounts,
  RunMutator,
  RunQuery,
  StateStore,
  StoreHealth,
  TaskOutcomeWrite,
} from '../types.js';
import { APPEND_COLLECTIONS, journalEntryProblem, type JournalEntry } from './journal-entry.js';
import { readJournalSegments, truncateJournal } from './journal-replay.js';
import { Journal } from './journal.js';
import { MemoryModel } from './memory-model.js';
import {
  fileStorePaths,
  readSnapshot,
  removeLeftoverTmp,
  snapshotRecords,
  writeSnapshot,
  type FileStorePaths,
  type SnapshotCapture,
  type SnapshotDocument,
} from './snapshot.js';
import { StoreLifecycle } from '../store-lifecycle.js';

/** Rounds of choosing one claim makes at most (see claimRuns). */
const MAX_CLAIM_ROUNDS = 4;

export interface FileStoreOptions extends StoreOptions {
  /**
   * Compact (rewrite the snapshot, empty the journal) once the journal is this large. Default:
   * 16 MiB or the size of the last snapshot, whichever is larger.
   */
  compactAfterBytes?: number;
  /**
   * ... or holds this many entries. Default: 20,000 or as many as the last snapshot held records,
   * whichever is larger.
   */
  compactAfterEntries?: number;
  /**
   * Whether the thresholds grow with the last snapshot (see above). Default: true unless either
   * threshold is set (tests that set one want compactions that often).
   */
  scaleWithSnapshot?: boolean;
  /** The file system under the store (tests put a power-loss double here). Default: Node's. */
  fs?: StoreFs;
  /** Takes the store's ownership lock. Default: the pid lock file beside the state file. */
  acquireLock?: (lockPath: string, statePath: string) => Promise<PidLock>;
}

export const DEFAULT_COMPACT_AFTER_BYTES = 16 * 1024 * 1024;
export const DEFAULT_COMPACT_AFTER_ENTRIES = 20_000;

/** What exists only while the store is open. */
interface Session {
  model: MemoryModel;
  journal: Journal;
  scheduler: FlushScheduler;
  lock: PidLock;
  /** A sealed journal segment exists: the snapshot of a compaction still has to cover it. */
  sealed: boolean;
  /** The background compaction in progress; at most one. Never rejects. */
  compaction: Promise<void> | null;
  /**
   * The change feed's head: the stamp (journal number) of the last durable write that appended
   * run events. Every journal line up to it is fsynced (group commits are in journal order), so
   * events stamped up to it can be handed out; a later one might still be lost to a crash.
   */
  eventsDurableTx: number;
}

/**
 * The record a run write stores: `seq` as the store owns it, and the events it appends stamped
 * with the write's journal number, which is its commit order and survives every restart and
 * compaction (the snapshot keeps the last number).
 */
function runToStore(runId: string, current: RunRecord | null, next: RunRecord, seq: number): { record: RunRecord; stamped: boolean } {
  const record = stampNewEvents(current, storedRun(runId, current, next, () => seq), () => seq);
  return { record, stamped: appendsEvents(current, record) };
}

/**
 * The run as stored and what the mutator makes of it. The mutator gets the stored record itself:
 * mutators are pure (they return a new record), and the record is deep-frozen, so one that tried
 * to change its argument would throw instead of changing the store. A copy per write was 3% of
 * a run's CPU.
 */
function proposeRun(session: Session, runId: string, mutate: RunMutator): { current: RunRecord | null; next: RunRecord | null } {
  const current = session.model.getRun(runId) ?? null;
  return { current, next: mutate(current) };
}

/** A write that changed nothing: the current record may still sit in an unflushed batch, so answer once it is durable. */
async function unchanged(session: Session, current: RunRecord | null): Promise<MutateResult> {
  await session.journal.barrier();
  return { before: current, after: current, changed: false };
}


/**
 * The default store: a JSON snapshot (the state file) plus an append-only journal beside it.
 *
 * Reads are served from an in-memory model. A write is applied to the model at once (so the
 * next read and the next mutator see it), its journal line is buffered, and its promise
 * resolves after the group commit that fsyncs that line. The journal is folded into a new
 * snapshot when it grows past a threshold and at close; see docs/persistence.md.
 */
export class FileStateStore implements StateStore {
  readonly kind = 'file' as const;
  readonly exclusive = true;
  readonly target: string;
  private readonly paths: FileStorePaths;
  private readonly logger: StoreLogger;
  private readonly flushIntervalMs: number;
  private readonly compactAfterBytes: number;
  private readonly compactAfterEntries: number;
  /**
   * The thresholds grow with the snapshot: rewriting a large state every 20,000 lines made the
   * compactions run back to back under load, their cost growing with the state; scaled, each
   * costs at most what the journal lines since the last one did (amortized O(1) per write), and
   * a replay after a crash reads at most about one snapshot's worth of journal.
   */
  private readonly scaleWithSnapshot: boolean;
  /** Size of the last snapshot written or loaded. */
  private lastSnapshot = { bytes: 0, records: 0 };
  private readonly lifecycle: StoreLifecycle<Session>;
  private compactionError: Error | null = null;
  /** Journal size when compaction last failed: the next try waits for another threshold's worth. */
  private compactionFloor = { bytes: 0, entries: 0 };
  private readonly fs: StoreFs;
  private readonly eventListeners = new Set<(written: RunEventsWritten) => void>();
  private readonly acquireLock: (lockPath: string, statePath: string) => Promise<PidLock>;

  constructor(path: string, options: FileStoreOptions = {}) {
    this.target = resolve(path);
    this.paths = fileStorePaths(this.target);
    this.lifecycle = new StoreLifecycle(this.target);
    this.logger = options.logger ?? silentLogger;
    this.flushIntervalMs = options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
    this.compactAfterBytes = options.compactAfterBytes ?? DEFAULT_COMPACT_AFTER_BYTES;
    this.compactAfterEntries = options.compactAfterEntries ?? DEFAULT_COMPACT_AFTER_ENTRIES;
    this.scaleWithSnapshot = options.scaleWithSnapshot ?? (options.compactAfterBytes === undefined && options.compactAfterEntries === undefined);
    this.fs = options.fs ?? nodeStoreFs;
    this.acquireLock = options.acquireLock ?? acquirePidLock;
  }

  async open(): Promise<void> {
    await this.lifecycle.open(async () => {
      await this.fs.mkdirp(dirname(this.target));
      return this.load(await this.acquireLock(this.paths.lock, this.target));
    });
  }

  /** Snapshot + journal replay; on any failure the lock is released and no state file was changed. */
  private async load(lock: PidLock): Promise<Session> {
    let journal: Journal | null = null;
    try {
      const snapshot = await readSnapshot(this.paths, this.fs);
      const replay = await readJournalSegments(
        { sealed: this.paths.sealedJournal, active: this.paths.journal },
        snapshot?.document.meta.lastSeq ?? 0,
        this.fs,
      );
      const model = new MemoryModel(snapshot?.document ?? null);
      if (snapshot !== null) this.lastSnapshot = { bytes: snapshot.bytes, records: snapshotRecords(snapshot.document) };
      for (const entry of replay.entries) model.apply(entry);
      if (replay.tornBytes > 0) {
        await truncateJournal(this.paths.journal, replay.validBytes, this.fs);
        this.logger.warn(
          { journal: this.paths.journal, tornBytes: replay.tornBytes, keptEntries: replay.lineCount },
          'state journal ended in a torn write (never acknowledged); cut it off',
        );
      }
      await removeLeftoverTmp(this.paths, this.fs);
      journal = await Journal.open(
        this.paths.journal,
        model.lastSeq,
        { bytes: replay.validBytes, entries: replay.lineCount },
        this.fs,
      );
      const session: Session = {
        model,
        journal,
        lock,
        scheduler: new FlushScheduler(this.flushIntervalMs, () => this.flush(session)),
        sealed: replay.sealed,
        compaction: null,
        eventsDurableTx: model.lastSeq,
      };
      // Start from a clean pair: a snapshot in the current layout and an empty journal.
      if (snapshot === null || snapshot.legacy || replay.sealed || replay.lineCount > 0) await this.compactOrLog(session);
      return session;
    } catch (err) {
      await journal?.close();
      await lock.release();
      throw err;
    }
  }

  /** Makes every queued write durable, folds the journal into the snapshot and releases the lock. */
  close(): Promise<void> {
    return this.lifecycle.close(async (session) => {
      try {
        await session.scheduler.drain();
        await session.compaction;
        if (session.journal.broken === null) await this.compactOrLog(session);
      } finally {
        await session.journal.close();
        await session.lock.release();
      }
    });
  }

  /** Resolves once every queued group commit and the compaction in progress (if any) have finished. */
  async settle(): Promise<void> {
    const session = this.readable();
    await session.scheduler.drain();
    await session.journal.synced();
    await session.compaction;
  }

  async health(): Promise<StoreHealth> {
    const session = this.lifecycle.session;
    if (session === null) return { status: 'down', target: shownTarget(this.target), detail: 'store is not open', collections: {} };
    const collections = session.model.sizes();
    const { journal } = session;
    if (journal.broken !== null) return { status: 'down', target: shownTarget(this.target), detail: journal.broken.message, collections };
    const size = `${journal.entries} journal entries, ${journal.bytes} bytes since the last compaction`;
    if (this.compactionError !== null) {
      return {
        status: 'degraded',
        target: shownTarget(this.target),
        detail: `compaction failing (${this.compactionError.message}); writes stay durable in the journal (${size})`,
        collections,
      };
    }
    return { status: 'ok', target: shownTarget(this.target), detail: `JSON snapshot with append-only journal (${size})`, collections };
  }

  /** One process owns this store, so its leases are renewed run by run (src/store/renew-leases.ts). */
  renewLeases(ownerId: string, attempts: readonly LeaseHeld[], leaseUntil: string): Promise<string[]> {
    return renewLeasesRunByRun(this, ownerId, attempts, leaseUntil);
  }

  mutateRun(runId: string, mutate: RunMutator): Promise<MutateResult> {
    return this.mutateRunAndAppend(runId, mutate, () => []);
  }

  async mutateRunAndAppend(runId: string, mutate: RunMutator, appendsFor: AppendsFor): Promise<MutateResult> {
    const session = this.writable();
    const { current, next } = proposeRun(session, runId, mutate);
    if (next === null) return unchanged(session, current);
    const seq = session.model.lastSeq + 1;
    const { record, stamped } = runToStore(runId, current, next, seq);
    const durable = [this.commit(session, { seq, op: 'run', record })];
    // The stored record is deep-frozen and parsed from the journal line (nothing else holds it):
    // it is handed out as is, like reads do, instead of cloned once more.
    const after = session.model.getRun(runId) ?? null;
    // `current` left the model when it was replaced, so it can be handed out without a copy.
    const result = { before: current, after, changed: true };
    // Later lines of the same batch; all are awaited so a failed fsync rejects none of them unhandled.
    for (const { collection, record, keep } of appendsFor(result)) {
      durable.push(this.commit(session, { seq: session.model.lastSeq + 1, op: 'append', collection, record, keep: retentionCount(keep) }));
    }
    await Promise.all(durable);
    if (stamped) this.eventsDurable(session, seq);
    return result;
  }

  async claimNextRun(options: ClaimOptions, mutate: (run: RunRecord) => RunRecord): Promise<RunRecord | null> {
    const [claimed] = await this.claimRuns(options, 1, mutate);
    return claimed ?? null;
  }

  /**
   * Claims in claim order (src/store/fair-claims.ts), applied to the model one after another
   * (each sees the previous), then wait for one fsync. A round falls short only when a type
   * filled up; the next chooses among the other types' runs.
   */
  async claimRuns(options: ClaimOptions, max: number, mutate: (run: RunRecord) => RunRecord): Promise<RunRecord[]> {
    const session = this.writable();
    const { model } = session;
    const nowMs = (options.now ?? new Date()).getTime();
    const lookbackMs = rateLookbackMs(options.buckets ?? []);
    const usage = model.limitUsage(lookbackMs > 0 ? nowMs - lookbackMs : null);
    const chosen: RunRecord[] = [];
    const passed = new Set<string>();
    const held = new Map<string, string[]>();
    for (let round = 0; round < MAX_CLAIM_ROUNDS && chosen.length < max; round++) {
      const want = max - chosen.length;
      const candidates = model.readyCandidates(blockedTypes(options, runningByTypeOf(usage.running)), want + passed.size, nowMs).filter((c) => !passed.has(c.runId));
      if (candidates.length === 0) break;
      const lastStart = new Map(candidates.map((candidate) => [candidate.key, model.lastStartOf(candidate.key)]));
      for (const run of chosen) lastStart.set(fairnessKey(run), new Date(nowMs).toISOString());
      const gate = claimGate(options, usage, nowMs);
      const picks = pickFairly(candidates, lastStart, nowMs, want, (candidate) => {
        passed.add(candidate.runId);
        return gate.admit(candidate);
      });
      for (const [runId, buckets] of gate.held) held.set(runId, buckets);
      for (const pick of picks) {
        chosen.push(model.getRun(pick.runId)!);
        usage.running.push({ type: pick.type, key: pick.key, n: 1 });
        usage.started.push({ type: pick.type, key: pick.key, atMs: nowMs });
      }
      if (!gate.refused) break;
    }
    const claimed: RunRecord[] = [];
    const durable: Promise<void>[] = [];
    let lastStamp = 0;
    for (const candidate of chosen) {
      const seq = session.model.lastSeq + 1;
      const { record, stamped } = runToStore(candidate.runId, candidate, mutate(candidate), seq);
      if (stamped) lastStamp = seq;
      durable.push(this.commit(session, { seq, op: 'run', record }));
      claimed.push(session.model.getRun(candidate.runId)!);
    }
    for (const [runId, buckets] of held) {
      const current = model.getRun(runId);
      const next = current === undefined ? null : withBucketHolds(current, buckets);
      if (next === null) continue;
      const seq = session.model.lastSeq + 1;
      durable.push(this.commit(session, { seq, op: 'run', record: runToStore(runId, current!, next, seq).record }));
    }
    // Every promise is awaited (not only the last) so a failed fsync rejects none of them unhandled.
    await Promise.all(durable);
    if (lastStamp > 0) this.eventsDurable(session, lastStamp);
    return claimed;
  }

  /**
   * The state line goes first, then the run line, in the same batch: a crash that keeps only a
   * prefix of the batch leaves the task recorded with its run still running, which restart
   * recovery re-runs, never a finished run whose effects are missing.
   */
  async finishRun(runId: string, mutate: RunMutator, task: TaskOutcomeWrite): Promise<MutateResult> {
    const session = this.writable();
    const { current, next } = proposeRun(session, runId, mutate);
    if (next === null) return unchanged(session, current);
    // Computed before anything is committed, so a throwing state update writes nothing.
    const stateEntry: JournalEntry = task.stateUpdate
      ? { seq: session.model.lastSeq + 1, op: 'state', state: boundState(withTaskRecord(task.stateUpdate(structuredClone(session.model.state)), task.record)) }
      : { seq: session.model.lastSeq + 1, op: 'task', record: task.record };
    const stateDurable = this.commit(session, stateEntry);
    const seq = session.model.lastSeq + 1;
    const { record, stamped } = runToStore(runId, current, next, seq);
    const runDurable = this.commit(session, { seq, op: 'run', record });
    const after = session.model.getRun(runId) ?? null;
    await Promise.all([stateDurable, runDurable]);
    if (stamped) this.eventsDurable(session, seq);
    return { before: current, after, changed: true };
  }

  /** Reads hand out the stored record itself: it is deep-frozen, so it cannot be changed through them. */
  async getRun(runId: string): Promise<RunRecord | null> {
    return this.readable().model.getRun(runId) ?? null;
  }

  async queueGroups(now = new Date()): Promise<QueueGroup[]> {
    return this.readable().model.queueGroups(now.getTime());
  }

  async readLimitUsage(options: ClaimOptions): Promise<LimitUsage> {
    const lookbackMs = rateLookbackMs(options.buckets ?? []);
    return this.readable().model.limitUsage(lookbackMs > 0 ? (options.now ?? new Date()).getTime() - lookbackMs : null);
  }

  async cancelRequests(runIds: readonly string[]): Promise<CancelRequest[]> {
    const model = this.readable().model;
    return runIds.flatMap((runId) => cancelRequestOf(model.getRun(runId)) ?? []);
  }

  async listRuns(query: RunQuery): Promise<{ items: RunRecord[]; total: number }> {
    const q = normalizeRunQuery(query);
    const matching: RunRecord[] = [];
    const { model } = this.readable();
    const candidates = q.flowId === undefined ? model.allRuns() : model.flowRunsOf(q.flowId);
    for (const run of candidates) if (matchesRunQuery(run, q)) matching.push(run);
    if (q.order === 'newest') matching.reverse();
    const page = q.afterSeq === undefined ? matching : matching.filter((run) => pastCursor(run, q));
    return { items: page.slice(q.offset, q.offset + q.limit), total: matching.length };
  }

  /**
   * From memory: one run's events, or the runs the event index lists at or past the cursor's
   * stamp (every run when reading from among the events stored before stamps, which the index
   * does not list), up to the durable head.
   */
  async readRunEvents(after: EventCursor | null, limit: number, filter: RunEventFilter = {}): Promise<RunEventPage> {
    const { model, eventsDurableTx } = this.readable();
    const from = after ?? FEED_START;
    const picked: StoredRunEvent[] = [];
    if (filter.runId !== undefined) {
      const run = model.getRun(filter.runId);
      if (run !== undefined) picked.push(...runEventsPast(run, from, eventsDurableTx, filter));
    } else if (from.tx === 0 && from.runSeq !== Number.MAX_SAFE_INTEGER) {
      // Events stored before stamps (stamp 0) are not in the index.
      for (const run of model.allRuns()) picked.push(...runEventsPast(run, from, eventsDurableTx, filter));
    } else {
      for (const runId of new Set(model.eventIndex.runsSince(from.tx))) {
        const run = model.getRun(runId);
        if (run !== undefined) picked.push(...runEventsPast(run, from, eventsDurableTx, filter));
      }
    }
    return { events: firstInCursorOrder(picked, Math.max(0, Math.floor(limit))), heldBack: false };
  }

  async runEventsHead(): Promise<EventCursor> {
    return afterTx(this.readable().eventsDurableTx);
  }

  onRunEvents(listener: (written: RunEventsWritten) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** A write that appended events is durable: the feed's head moves and its readers are woken. */
  private eventsDurable(session: Session, tx: number): void {
    if (tx > session.eventsDurableTx) session.eventsDurableTx = tx;
    for (const listener of this.eventListeners) listener(ANY_RUN_EVENTS);
  }

  async countRuns(includeInternal = false): Promise<RunCounts> {
    const counts = emptyRunCounts();
    for (const run of this.readable().model.allRuns()) {
      if (includeInternal || !run.internal) addToRunCounts(counts, run, 1, approvalSettlementOf(run));
    }
    return counts;
  }

  async pruneRuns(keep: number): Promise<number> {
    const session = this.writable();
    let excess = session.model.runCount - retentionCount(keep);
    const victims: string[] = [];
    for (const run of session.model.allRuns()) {
      if (excess <= 0) break;
      if (PRUNABLE_STATUSES.includes(run.status)) {
        victims.push(run.runId);
        excess--;
      }
    }
    await Promise.all(victims.map((runId) => this.commit(session, { seq: session.model.lastSeq + 1, op: 'run-delete', runId })));
    return victims.length;
  }

  /** The stored document itself: it is deep-frozen, like the runs reads hand out. */
  async getState(): Promise<OrchestratorState> {
    return this.readable().model.state;
  }

  /** The whole document: it is in memory, so leaving the history out would save nothing. */
  getStateWithoutHistory(): Promise<StateWithoutHistory> {
    return this.getState();
  }

  async mutateState(mutate: (current: OrchestratorState) => OrchestratorState | null): Promise<OrchestratorState> {
    const session = this.writable();
    const next = mutate(structuredClone(session.model.state));
    if (next === null) {
      const unchanged = structuredClone(session.model.state);
      await session.journal.barrier();
      return unchanged;
    }
    const durable = this.commit(session, { seq: session.model.lastSeq + 1, op: 'state', state: boundState(next) });
    const after = structuredClone(session.model.state);
    await durable;
    return after;
  }

  async recordTask(record: TaskRecord): Promise<void> {
    const session = this.writable();
    await this.commit(session, { seq: session.model.lastSeq + 1, op: 'task', record });
  }

  async append(collection: AppendCollection, record: Record<string, unknown>, keep: number): Promise<void> {
    const session = this.writable();
    await this.commit(session, { seq: session.model.lastSeq + 1, op: 'append', collection, record, keep: retentionCount(keep) });
  }

  async listAppended(
    collection: AppendCollection,
    query: { limit: number; offset?: number },
  ): Promise<{ items: Record<string, unknown>[]; total: number }> {
    if (!APPEND_COLLECTIONS.includes(collection)) throw new ProgrammingError(`unknown append collection ${String(collection)}`);
    const stored = this.readable().model.appended(collection);
    const offset = Math.max(0, Math.floor(query.offset ?? 0));
    const limit = Math.max(0, Math.floor(query.limit));
    // Stored oldest first; newest first means walking back from the end.
    const end = Math.max(0, stored.length - offset);
    const start = Math.max(0, end - limit);
    return { items: stored.slice(start, end).reverse().map((item) => structuredClone(item)), total: stored.length };
  }

  async putDoc(collection: string, id: string, doc: Record<string, unknown>): Promise<void> {
    const session = this.writable();
    await this.commit(session, { seq: session.model.lastSeq + 1, op: 'doc', collection, id, doc });
  }

  async insertDoc(collection: string, id: string, doc: Record<string, unknown>): Promise<boolean> {
    const session = this.writable();
    // One writer process holds the file store; the check and the journal entry share one tick.
    if (session.model.getDoc(collection, id) !== undefined) {
      await session.journal.barrier();
      return false;
    }
    await this.commit(session, { seq: session.model.lastSeq + 1, op: 'doc', collection, id, doc });
    return true;
  }

  async deleteDoc(collection: string, id: string): Promise<void> {
    const session = this.writable();
    // Nothing to remove: no journal line, but the answer still waits for what is in flight.
    if (session.model.getDoc(collection, id) === undefined) return session.journal.barrier();
    await this.commit(session, { seq: session.model.lastSeq + 1, op: 'doc-delete', collection, id });
  }

  async getDoc(collection: string, id: string): Promise<Record<string, unknown> | null> {
    const doc = this.readable().model.getDoc(collection, id);
    return doc === undefined ? null : structuredClone(doc);
  }

  async listDocs(collection: string): Promise<Record<string, unknown>[]> {
    return this.readable().model.docsIn(collection).map((doc) => structuredClone(doc));
  }

  async listDocEntries(collection: string): Promise<Array<{ id: string; doc: Record<string, unknown> }>> {
    return this.readable().model.docEntriesIn(collection).map(([id, doc]) => ({ id, doc: structuredClone(doc) }));
  }

  /** From memory: the collection's ids in byte order, walked from the top; only the page's documents are copied. */
  async listDocPage(collection: string, page: DocPage): Promise<Array<{ id: string; doc: Record<string, unknown> }>> {
    const entries = this.readable().model.docEntriesIn(collection);
    const picked: Array<{ id: string; doc: Record<string, unknown> }> = [];
    const below = page.below === undefined ? null : Buffer.from(page.below);
    const floor = page.atOrAbove === undefined ? null : Buffer.from(page.atOrAbove);
    for (let i = entries.length - 1; i >= 0 && picked.length < page.limit; i -= 1) {
      const [id, doc] = entries[i]!;
      const key = Buffer.from(id);
      if (below !== null && Buffer.compare(key, below) >= 0) continue;
      if (floor !== null && Buffer.compare(key, floor) < 0) break;
      picked.push({ id, doc: structuredClone(doc) });
    }
    return picked;
  }

  /**
   * Applies one change to the model and queues its journal line; the promise resolves when the
   * line is durable. The model receives the parsed line, not the caller's object, so memory
   * holds exactly what a replay would rebuild and the caller cannot alter it afterwards. A line
   * that a restart would refuse to replay is refused now instead.
   */
  private commit(session: Session, entry: JournalEntry): Promise<void> {
    // A run's record text is made on its own and kept by the model for the next compaction; the
    // line around it is what JSON.stringify(entry) gives (same keys, same order).
    const runText = entry.op === 'run' ? JSON.stringify(entry.record) : undefined;
    const line = runText === undefined ? JSON.stringify(entry) : `{"seq":${entry.seq},"op":"run","record":${runText}}`;
    const stored: unknown = JSON.parse(line);
    const problem = journalEntryProblem(stored);
    if (problem !== null) throw stateCorrupt(`refusing to store an invalid ${entry.op} change: ${problem}`);
    session.model.apply(stored as JournalEntry, runText);
    const durable = session.journal.append(entry.seq, line);
    session.scheduler.request();
    return durable;
  }

  /** One group commit, then a background compaction if the journal has grown past its threshold. */
  private async flush(session: Session): Promise<void> {
    const { journal } = session;
    await journal.writePending();
    if (journal.broken !== null) {
      this.logger.error({ journal: journal.path, err: journal.broken }, 'state journal write failed; writes are refused');
      return;
    }
    if (session.compaction !== null) return;
    const grownBytes = journal.bytes - this.compactionFloor.bytes;
    const grownEntries = journal.entries - this.compactionFloor.entries;
    const threshold = this.threshold();
    if (grownBytes >= threshold.bytes || grownEntries >= threshold.entries) await this.startCompaction(session);
  }

  private threshold(): { bytes: number; entries: number } {
    if (!this.scaleWithSnapshot) return { bytes: this.compactAfterBytes, entries: this.compactAfterEntries };
    return {
      bytes: Math.max(this.compactAfterBytes, this.lastSnapshot.bytes),
      entries: Math.max(this.compactAfterEntries, this.lastSnapshot.records),
    };
  }

  private snapshotWritten(snapshot: SnapshotDocument, bytes: number): void {
    this.lastSnapshot = { bytes, records: snapshotRecords(snapshot) };
  }

  /**
   * Runs in the flush slot, between two batches: seals the journal segment written so far (unless
   * a failed compaction left one sealed already), captures the model, and leaves the slow part
   * (serializing and writing the snapshot) to run in the background while group commits go on
   * into the new segment. The capture may include lines still buffered: they go to the new
   * segment as well, where replay skips them once the snapshot covers them.
   */
  private async startCompaction(session: Session): Promise<void> {
    if (!session.sealed) {
      try {
        await session.journal.rotate(this.paths.sealedJournal, this.fs);
      } catch (err) {
        this.logger.error({ journal: session.journal.path, err }, 'state journal rotation failed; writes are refused');
        return;
      }
      session.sealed = true;
    }
    const capture = session.model.toSnapshot();
    session.compaction = this.finishCompaction(session, capture).finally(() => {
      session.compaction = null;
    });
  }

  /**
   * Writes the captured snapshot, then drops the sealed segment it covers. A crash before the
   * snapshot rename leaves the old snapshot with both segments; after it, the new snapshot and
   * segments whose lines it covers (skipped by replay). Acknowledgements never wait for this:
   * every line is acknowledged by the fdatasync of the segment it was written to.
   */
  private async finishCompaction(session: Session, capture: SnapshotCapture): Promise<void> {
    try {
      this.snapshotWritten(capture.document, await writeSnapshot(this.paths, capture, this.fs));
      await this.removeSealedSegment(session);
      this.compactionSucceeded();
    } catch (err) {
      this.compactionFailed(session, err as Error);
    }
  }

  private async removeSealedSegment(session: Session): Promise<void> {
    if (!session.sealed) return;
    await this.fs.remove(this.paths.sealedJournal);
    await this.fs.syncDirectory(dirname(this.paths.sealedJournal));
    session.sealed = false;
  }

  /**
   * Folds everything into a new snapshot, drops the sealed segment and empties the journal, while
   * no flush can start (at open and close). Lines buffered meanwhile are covered by the snapshot.
   */
  private async compact(session: Session): Promise<void> {
    const capture = session.model.toSnapshot();
    this.snapshotWritten(capture.document, await writeSnapshot(this.paths, capture, this.fs));
    session.journal.coveredBySnapshot(capture.document.meta.lastSeq);
    await this.removeSealedSegment(session);
    await session.journal.restart();
  }

  /** A failed compaction loses nothing (the journal still holds every change), so it is logged, not thrown. */
  private async compactOrLog(session: Session): Promise<void> {
    try {
      await this.compact(session);
      this.compactionSucceeded();
    } catch (err) {
      this.compactionFailed(session, err as Error);
    }
  }

  private compactionSucceeded(): void {
    this.compactionError = null;
    this.compactionFloor = { bytes: 0, entries: 0 };
  }

  /** The next try waits for another threshold's worth of journal. */
  private compactionFailed(session: Session, err: Error): void {
    this.compactionError = err;
    this.compactionFloor = { bytes: session.journal.bytes, entries: session.journal.entries };
    this.logger.error({ target: shownTarget(this.target), err }, 'state snapshot compaction failed; the journal keeps growing');
  }

  private readable(): Session {
    return this.lifecycle.readable();
  }

  private writable(): Session {
    const session = this.lifecycle.writable();
    if (session.journal.broken !== null) throw session.journal.broken;
    return session;
  }
}
