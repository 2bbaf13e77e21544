import type { RunRecord } from '../../domain/run-record.js';
import { deepFreeze } from '../deep-freeze.js';
import { lastEventTx } from '../run-event-stamps.js';

/** The transaction id as a row's `xmin` shows it: the low 32 bits of `pg_current_xact_id()`. */
const XID_SPAN = 2 ** 32;
/** Runs remembered at most; the oldest are forgotten first (they are then finished the slower way). */
const MAX_KNOWN = 4096;

export interface KnownRun {
  /**
   * The record as this instance wrote it, deep-frozen (it is the record the write's caller got,
   * which the runner holds while the attempt runs: remembering it costs no copy, and the final
   * write's mutator gets it without a parse).
   */
  run: RunRecord;
  /** The writing transaction's id as the row's `xmin` holds it while nobody has written the row since. */
  xmin: number;
}

/**
 * The runs this instance last wrote running (claimed, or started at admission), with the
 * transaction that wrote each, so that their final write can be one statement that checks the
 * row is as this instance left it (`xmin`, finish-known-runs.ts) instead of locking and reading
 * it first. A hint only: a run written since (cancelled, taken over) fails the check and is
 * finished the usual way, and nothing here is needed for correctness on a restart.
 */
export class KnownRuns {
  private readonly runs = new Map<string, KnownRun>();

  /** After a write that appended the run's newest events (its stamp names the writing transaction). */
  remember(run: RunRecord): void {
    this.runs.delete(run.runId);
    const tx = lastEventTx(run);
    if (run.status !== 'running' || tx <= 0) return;
    this.runs.set(run.runId, { run: deepFreeze(run), xmin: tx % XID_SPAN });
    if (this.runs.size > MAX_KNOWN) this.runs.delete(this.runs.keys().next().value!);
  }

  /** The run as remembered, forgotten now (its final write is under way). */
  take(runId: string): KnownRun | undefined {
    const known = this.runs.get(runId);
    this.runs.delete(runId);
    return known;
  }

  forget(runId: string): void {
    this.runs.delete(runId);
  }
}
