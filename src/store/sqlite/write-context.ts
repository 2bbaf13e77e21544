import type Database from 'better-sqlite3';
import type { RunRecord } from '../../domain/run-record.js';
import type { OrchestratorState } from '../../domain/orchestrator-state.js';
import type { SqlParam, WriteOp } from './writer-thread.js';
import { EVENT_TX_COUNTER } from './schema.js';

/**
 * What a write sees and produces while its batch is being built on the event loop. Reads come
 * from the store's own connection, which sees every committed batch (a batch is built only once
 * the one before it committed), overlaid with what earlier writes of the same batch stored; the
 * statements it produces run later, all of the batch's in one transaction, on the writer thread.
 *
 * Each write of a batch gets its own context: if it throws, what it staged is dropped and the
 * rest of the batch goes on (as a savepoint rolled back alone did).
 */

/** A run as a write of this batch stored it: the row's text, and its fields the claims look at. */
interface StagedRun {
  doc: string;
  run: Pick<RunRecord, 'seq' | 'type' | 'status' | 'queueState' | 'concurrencyKey' | 'priority' | 'createdAt' | 'startedAt' | 'notBefore'>;
  /** The committed row's type and status (null for a run new in this batch): running counts are adjusted by the difference. */
  base: Pick<RunRecord, 'type' | 'status' | 'concurrencyKey'> | null;
}

/** The value of a write that is the `changes` of one of its statements, known once the batch committed. */
export class ChangeCount {
  constructor(readonly index: number) {}
}

/**
 * One batch: its statements, the runs its writes stored, the run counter, the run events' write
 * stamp (see run-event-stamps.ts: batches are built on the event loop in commit order, so a
 * counter stamped here is commit order) and the state document.
 */
export class WriteBatch {
  readonly ops: WriteOp[] = [];
  readonly runs = new Map<string, StagedRun>();
  readonly firstSeq: number;
  readonly firstTx: number;

  constructor(
    readonly db: Database.Database,
    public seq: number,
    public state: OrchestratorState,
    public tx = 0,
  ) {
    this.firstSeq = seq;
    this.firstTx = tx;
  }

  /** True when a write of the batch appended run events. */
  get stampedEvents(): boolean {
    return this.tx !== this.firstTx;
  }

  /** A context for the next write of the batch. */
  begin(): WriteContext {
    return new WriteContext(this);
  }

  /** The statements to run, the run counter's new value last. */
  statements(): WriteOp[] {
    const counters: WriteOp[] = [];
    if (this.seq !== this.firstSeq) counters.push(["UPDATE counters SET value = ? WHERE name = 'run_seq'", [this.seq]]);
    if (this.tx !== this.firstTx) counters.push([`UPDATE counters SET value = ? WHERE name = '${EVENT_TX_COUNTER}'`, [this.tx]]);
    return counters.length === 0 ? this.ops : [...this.ops, ...counters];
  }
}

export class WriteContext {
  private readonly ops: WriteOp[] = [];
  private readonly runs = new Map<string, StagedRun>();
  private seq: number;
  private tx: number;
  /** The state document as this write sees it (deep-frozen). */
  state: OrchestratorState;

  constructor(private readonly batch: WriteBatch) {
    this.seq = batch.seq;
    this.tx = batch.tx;
    this.state = batch.state;
  }

  /** The store's connection, for reads: it sees what is committed, not what this batch staged. */
  get db(): Database.Database {
    return this.batch.db;
  }

  /** Adds a statement to the batch. */
  run(sql: string, params: readonly SqlParam[]): void {
    this.ops.push([sql, params]);
  }

  /** Adds a statement whose `changes` is the write's value (see ChangeCount). */
  runCounted(sql: string, params: readonly SqlParam[]): ChangeCount {
    this.run(sql, params);
    return new ChangeCount(this.batch.ops.length + this.ops.length - 1);
  }

  nextSeq(): number {
    this.seq += 1;
    return this.seq;
  }

  /** The next write stamp of run events. */
  nextTx(): number {
    this.tx += 1;
    return this.tx;
  }

  /** The row text of a run stored earlier in this batch, or undefined when the connection has the current one. */
  stagedDoc(runId: string): string | undefined {
    return (this.runs.get(runId) ?? this.batch.runs.get(runId))?.doc;
  }

  /** Records a run this write stores; `current` is the version it replaced (null for a new run). */
  stageRun(run: RunRecord, doc: string, current: RunRecord | null): void {
    const earlier = this.runs.get(run.runId) ?? this.batch.runs.get(run.runId);
    const base = earlier !== undefined ? earlier.base : current === null ? null : { type: current.type, status: current.status, concurrencyKey: current.concurrencyKey };
    this.runs.set(run.runId, {
      doc,
      run: {
        seq: run.seq,
        type: run.type,
        status: run.status,
        queueState: run.queueState,
        concurrencyKey: run.concurrencyKey,
        priority: run.priority,
        createdAt: run.createdAt,
        startedAt: run.startedAt,
        notBefore: run.notBefore,
      },
      base,
    });
  }

  /** Every staged run as this write sees it (its own over the batch's). */
  *stagedRuns(): Generator<[string, StagedRun]> {
    for (const entry of this.batch.runs) if (!this.runs.has(entry[0])) yield entry;
    yield* this.runs;
  }

  get stagedCount(): number {
    return this.batch.runs.size + this.runs.size;
  }

  /** The write succeeded: what it staged joins the batch. */
  keep(): void {
    this.batch.ops.push(...this.ops);
    for (const [runId, staged] of this.runs) this.batch.runs.set(runId, staged);
    this.batch.seq = this.seq;
    this.batch.tx = this.tx;
    this.batch.state = this.state;
  }
}
