import type { LimitBucket, LimitUsage, QueueGroup } from './limit-buckets.js';
import type { QueueState, RunEvent, RunRecord, RunStatus } from '../domain/run-record.js';
import type { EventCursor } from '../domain/run-event-cursor.js';
import type { OrchestratorState, StateWithoutHistory, TaskRecord } from '../domain/orchestrator-state.js';
import { DomainError } from '../domain/errors.js';
import type { PayloadFilterValue } from './run-field-filters.js';

/**
 * A pure, synchronous transition of one run record. Receives the current record (null when the
 * run does not exist) and returns the new record, or null to leave it unchanged. Drivers call it
 * inside their atomic section (in-memory lock, SQLite transaction, SELECT ... FOR UPDATE), so it
 * must not do I/O and may be called more than once if a driver retries. It must not change its
 * argument: a driver may hand it the stored record itself, deep-frozen (the file store does).
 */
export type RunMutator = (current: RunRecord | null) => RunRecord | null;

export interface MutateResult {
  before: RunRecord | null;
  after: RunRecord | null;
  /** True when the mutator returned a record and it was stored. */
  changed: boolean;
}

export interface RunQuery {
  type?: string;
  status?: RunStatus;
  queueState?: Exclude<QueueState, null>;
  /** Only runs whose id starts with this text (case-sensitive): how a short id is resolved. */
  idPrefix?: string;
  /** Only runs whose payload holds each of these dotted fields with this scalar value (run-field-filters.ts). */
  payload?: Record<string, PayloadFilterValue>;
  /** Only runs whose result's `verdict` or `posture` is this text. */
  verdict?: string;
  /** Internal task types (startup, heartbeat, doc-change) are left out unless true. */
  includeInternal?: boolean;
  limit?: number;
  offset?: number;
  /** `newest` (default): createdAt/seq descending. `oldest`: ascending. */
  order?: 'newest' | 'oldest';
  /**
   * Cursor paging: only runs with a seq beyond this one in the listing order (below it when
   * newest first, above it when oldest first). `total` still counts every run matching the filters.
   */
  afterSeq?: number;
  /** Only runs created at or after this instant (ISO 8601). */
  createdFrom?: string;
  /** Only runs created before this instant (ISO 8601): the range is half-open, [createdFrom, createdTo). */
  createdTo?: string;
  /** Only runs with this concurrency key. */
  concurrencyKey?: string;
  /**
   * Only the runs of this flow (`flowStep.flowId`: its step runs and their approval replays),
   * read from an index of the flow id in every driver (src/flows/ reads a flow's waiting steps,
   * and whether any step has not ended, through it).
   */
  flowId?: string;
  /** Only runs carrying every one of these tags (domain/run-tags.ts). */
  tags?: readonly string[];
}

export interface ClaimOptions {
  /** Per-type cap on runs in status `running` across everything sharing the store. */
  typeLimits: Record<string, number>;
  /** Types this caller must not claim now (for example because its local slots for them are full). */
  excludeTypes?: string[];
  /** The claim's time, which priority aging and rate windows count to (src/store/fair-claims.ts); absent: the process clock. */
  now?: Date;
  /** Limit buckets (config `limits`, src/store/limit-buckets.ts): a run is claimed only when each it matches has room. */
  buckets?: readonly LimitBucket[];
}

/** An attempt whose lease an instance holds (StateStore.renewLeases). */
export interface LeaseHeld {
  runId: string;
  attempt: number;
}

/** A running attempt whose cancel was requested (StateStore.cancelRequests). */
export interface CancelRequest {
  runId: string;
  attempt: number;
  /** The instance holding the attempt's claim. */
  ownerId: string | null;
}

export interface RunCounts {
  byStatus: Record<RunStatus, number>;
  byType: Record<string, Record<RunStatus, number>>;
  /**
   * Per type, the held runs a decision settled without their lane running (domain/approval-refusal.ts):
   * they are in `byType` under the contract's status (`failed` when rejected or expired, `success`
   * when closed for their replay) but say nothing about whether the lane works.
   */
  settledByApprovalByType: Record<string, { rejected: number; closedForReplay: number }>;
  ready: number;
  held: number;
  total: number;
}

export interface StoreHealth {
  status: 'ok' | 'degraded' | 'down';
  /** Human-readable target, never a credential (file path, `sql:<path>`, `postgres:<host>/<db>`, `docdb:<key>`). */
  target: string;
  detail: string;
  /** Collections (or tables) with their row counts, when cheap to know. */
  collections: Record<string, number>;
}

export interface HealthOptions {
  /** Whether `collections` gets its row counts (default true). A driver may give them anyway when they cost nothing. */
  counts?: boolean;
}

/** Append-only collections with bounded retention (newest kept). */
export type AppendCollection = 'telemetry' | 'milestones';

/** One record for a bounded append collection, keeping the newest `keep`. */
export interface AppendRecord {
  collection: AppendCollection;
  record: Record<string, unknown>;
  keep: number;
}

/** What an attempt's outcome writes to the OrchestratorState: its task record, and the handler's own change. */
export interface TaskOutcomeWrite {
  record: TaskRecord;
  /** Applied before the record is added (as `mutateState` would); absent: only the record (as `recordTask`). */
  stateUpdate?: (state: OrchestratorState) => OrchestratorState;
}

/**
 * What a committed write that appended run events changed for the runners sharing the store:
 * whether it left a run ready to claim (admitted, approved, retried, requeued), and whether a
 * run left `running` (its type's slot under a per-type limit is free again). Another instance's
 * runner looks for work when either may concern it, and not after every claim.
 */
export interface RunEventsWritten {
  readyRuns: boolean;
  runsLeftRunning: boolean;
}

/** For a driver only one process uses: nobody else's runner hears of its writes, so it does not tell them apart. */
export const ANY_RUN_EVENTS: RunEventsWritten = Object.freeze({ readyRuns: true, runsLeftRunning: true });

/** What a run write's outcome changed for a runner (RunEventsWritten). */
export function runEventsWrittenBy(result: MutateResult): RunEventsWritten {
  const after = result.after;
  return {
    readyRuns: result.changed && after !== null && after.queueState === 'ready',
    runsLeftRunning: result.changed && result.before?.status === 'running' && after?.status !== 'running',
  };
}

/** Records to append in the same commit as a run write, chosen from its outcome. */
export type AppendsFor = (result: MutateResult) => AppendRecord[];

/** Which run events a change-feed read returns; every field narrows, none set: all of them. */
export interface RunEventFilter {
  /** One run's events only. */
  runId?: string;
  /** Runs of this task type only. */
  type?: string;
  /** Runs whose id starts with this text only (case-sensitive): a flow's steps, `flow:<flowId>:`. */
  runIdPrefix?: string;
  /** Events whose write left the run in this status only. */
  status?: RunStatus;
  /** Internal task types (startup, heartbeat, doc-change) are left out unless true (or `runId` names one). */
  includeInternal?: boolean;
}

/** One run event as the change feed hands it out, with the run it belongs to. */
export interface StoredRunEvent {
  cursor: EventCursor;
  runId: string;
  taskId: string;
  type: string;
  internal: boolean;
  /** The run's status right after the write that appended the event. */
  status: RunStatus;
  event: RunEvent;
}

export interface RunEventPage {
  /** In cursor order, each after the `after` of the read. */
  events: StoredRunEvent[];
  /**
   * True when the store holds committed events beyond these that it may not hand out yet
   * (PostgreSQL: a transaction stamped earlier has not ended): read again soon.
   */
  heldBack: boolean;
}

/**
 * The persistence port. Every write resolves only once it is durable (fsynced journal or
 * committed transaction); a 202 or any other acknowledgement is sent after that.
 */
export interface StateStore {
  readonly kind: 'file' | 'sql' | 'postgres';
  /** True when one process owns the store at a time, so restart recovery may reclaim every running run. */
  readonly exclusive: boolean;
  readonly target: string;

  open(): Promise<void>;
  close(): Promise<void>;
  /**
   * Reachability and, unless `counts` is false, the row counts of `collections`. A periodic
   * check that only needs the status passes false: on a shared database the counts walk
   * whole tables, and every instance checks.
   */
  health(options?: HealthOptions): Promise<StoreHealth>;

  /** Atomic read-modify-write of one run. Durable before the promise resolves (also when unchanged). */
  mutateRun(runId: string, mutate: RunMutator): Promise<MutateResult>;
  /**
   * `mutateRun`, plus the records `appendsFor` picks from its outcome, in the same atomic commit
   * and made durable by the same fsync: one durability round for a run and its telemetry instead
   * of two. Only a stored run's records are appended. `appendsFor` must be a pure function of the
   * outcome: a driver may ask it before the write (PostgreSQL inserts new runs and their records
   * in one statement), for an insert that then finds the run present, and with the record's
   * `seq` and its new events' stamps not yet assigned.
   */
  mutateRunAndAppend(runId: string, mutate: RunMutator, appendsFor: AppendsFor): Promise<MutateResult>;
  /**
   * Atomically picks the oldest run with queueState `ready` whose type is within its limit and
   * not excluded, applies `mutate` (which marks it running) and stores it. Null when none.
   */
  claimNextRun(options: ClaimOptions, mutate: (run: RunRecord) => RunRecord): Promise<RunRecord | null>;
  /**
   * Up to `max` claims in one commit, each taken by the rules of `claimNextRun` in turn (the runs
   * claimed earlier in the batch count toward the type limits), oldest first; empty when none is
   * ready. One durability round for a runner filling several free slots.
   */
  claimRuns(options: ClaimOptions, max: number, mutate: (run: RunRecord) => RunRecord): Promise<RunRecord[]>;
  /**
   * What a claim under `options` would count now (src/store/limit-buckets.ts): running runs by
   * (type, key) and the starts inside the longest rate window. Read without the claims' lock: a
   * view of which limit holds a run, never a decision.
   */
  readLimitUsage(options: ClaimOptions): Promise<LimitUsage>;
  /**
   * Ready and running runs by (type, concurrency key), with each group's oldest ready admission
   * and how many of its ready runs wait for a not-before time after `now` (default: the process
   * clock); internal runs included.
   */
  queueGroups(now?: Date): Promise<QueueGroup[]>;
  /**
   * An attempt's final write in one commit: the task record (with the handler's state change,
   * when it has one) and the run's transition. When `mutate` leaves the run unchanged (the
   * attempt is no longer the caller's), the state is not touched either, so a superseded attempt
   * never applies its effects.
   */
  finishRun(runId: string, mutate: RunMutator, task: TaskOutcomeWrite): Promise<MutateResult>;
  /**
   * Extends to `leaseUntil` the leases `ownerId` holds on the attempts named, for the runs still
   * running under that owner and attempt; returns the ids it renewed (a missing one was taken over
   * or has finished). No event is appended. A shared driver does it in one write.
   */
  renewLeases(ownerId: string, attempts: readonly LeaseHeld[], leaseUntil: string): Promise<string[]>;
  getRun(runId: string): Promise<RunRecord | null>;
  /**
   * Of the runs named, those running with a cancel requested: one read for every attempt an
   * instance runs (its runner's cancel check), however many slots it has.
   */
  cancelRequests(runIds: readonly string[]): Promise<CancelRequest[]>;
  listRuns(query: RunQuery): Promise<{ items: RunRecord[]; total: number }>;
  countRuns(includeInternal?: boolean): Promise<RunCounts>;
  /**
   * The change feed of run events: up to `limit` events past `after` (null: from the first),
   * in commit order (docs/events.md). Gapless: an event is handed out only once every event
   * ordered before it is committed (and durable) and can be handed out too, so a reader that
   * continues from the last cursor it got never misses one, also across restarts.
   */
  readRunEvents(after: EventCursor | null, limit: number, filter?: RunEventFilter): Promise<RunEventPage>;
  /** The cursor just past every event `readRunEvents` can hand out now: where a new subscriber starts. */
  runEventsHead(): Promise<EventCursor>;
  /**
   * Calls `listener` after each write of this process that appended run events, once it is
   * committed and durable (other instances' writes are announced by the event channel, not
   * here), with what the write changed for a runner. Returns the unsubscribe function. A
   * listener must not throw.
   */
  onRunEvents(listener: (written: RunEventsWritten) => void): () => void;
  /** Deletes the oldest runs in a terminal status (success, failed) beyond `keep`; returns how many. */
  pruneRuns(keep: number): Promise<number>;

  /** The OrchestratorState document; it may be frozen (the file store hands out its own): never change it. */
  getState(): Promise<OrchestratorState>;
  /**
   * The document without its task history, for readers that never look at it (handlers bound
   * with bindStateHandler): a shared database reads one row instead of the row and 50 history
   * records. A driver holding the document in memory may answer the whole document.
   */
  getStateWithoutHistory(): Promise<StateWithoutHistory>;
  /** Atomic read-modify-write of the OrchestratorState document; null from `mutate` leaves it unchanged. */
  mutateState(mutate: (current: OrchestratorState) => OrchestratorState | null): Promise<OrchestratorState>;

  /**
   * Adds one finished task to the OrchestratorState (tasksProcessed + 1, taskHistory keeping the
   * newest 50) without rewriting the rest of the document: the per-run path stays small however
   * full rssDrafts or communityResponses are.
   */
  recordTask(record: TaskRecord): Promise<void>;

  /** Appends a record to a bounded collection, keeping the newest `keep`. */
  append(collection: AppendCollection, record: Record<string, unknown>, keep: number): Promise<void>;
  /** Newest first. */
  listAppended(
    collection: AppendCollection,
    query: { limit: number; offset?: number },
  ): Promise<{ items: Record<string, unknown>[]; total: number }>;

  /** Keyed documents of later features (incidents, business cycles, agent memory, ...). */
  putDoc(collection: string, id: string, doc: Record<string, unknown>): Promise<void>;
  /**
   * Stores the document only when none has that id: true when this call created it, false when
   * one was there (left unchanged). Of two instances creating the same id at once, one wins.
   */
  insertDoc(collection: string, id: string, doc: Record<string, unknown>): Promise<boolean>;
  getDoc(collection: string, id: string): Promise<Record<string, unknown> | null>;
  /** Removes one document; removing one that is not there is not an error. Durable before it resolves. */
  deleteDoc(collection: string, id: string): Promise<void>;
  listDocs(collection: string): Promise<Record<string, unknown>[]>;
  /** The same documents with their ids (ordered by id): what an export or a migration must carry over. */
  listDocEntries(collection: string): Promise<Array<{ id: string; doc: Record<string, unknown> }>>;
  /**
   * One page of a collection, ids descending, read from the key's index (not the collection):
   * at most `limit` documents with an id below `below` and at or above `atOrAbove` (each absent:
   * no bound). Ids compare as bytes in every driver; a caller that pages should use ids of ASCII
   * digits, lowercase letters and `-` (every PostgreSQL collation orders those alike).
   */
  listDocPage(collection: string, page: DocPage): Promise<Array<{ id: string; doc: Record<string, unknown> }>>;
}

/** A page of documents by id, descending (StateStore.listDocPage). */
export interface DocPage {
  below?: string;
  atOrAbove?: string;
  limit: number;
}

/**
 * Stored state that cannot be trusted (code `state_corrupt`): a driver cannot read what is on
 * disk (start-up stops with this message as its `fatal:` line, and no file is modified), or a
 * record it was asked to write would be refused when read back, so it is not written.
 */
export function stateCorrupt(message: string): DomainError {
  return new DomainError('state_corrupt', message);
}
