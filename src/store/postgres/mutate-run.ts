import type pg from 'pg';
import type { RunRecord } from '../../domain/run-record.js';
import { storedRun } from '../run-rules.js';
import { retentionCount } from '../retention.js';
import type { AppendsFor, MutateResult, RunMutator, TaskOutcomeWrite } from '../types.js';
import { appendRecord } from './append.js';
import { insertRun, insertStampedRun, frozenRun, stampedIn, TX_ID, updateRun } from './save-run.js';
import type { Queryable } from './transaction.js';
import { mutateStateIn, recordTaskIn } from './state.js';
import { withTransaction } from './transaction.js';

/**
 * Atomic read-modify-write of one run.
 *
 * A run not there yet (the admission of a new key) takes the short path: the mutator sees null
 * and its record is inserted by one `INSERT … ON CONFLICT DO NOTHING` - admission is decided by
 * the unique key, never by the read before it. An existing run is locked (`FOR UPDATE`) for a
 * transaction, so the mutator sees the latest committed record and no other instance changes
 * it meanwhile. When another instance inserted the same id first, the mutator runs again on
 * that record (mutators are pure, so this is safe). A record the insert cannot stamp in SQL (its
 * payload holds the pending stamp's text) is written by that transaction too.
 */
export async function mutateRun(pool: pg.Pool, runId: string, mutate: RunMutator): Promise<MutateResult> {
  const seen = await pool.query('SELECT 1 FROM runs WHERE run_id = $1', [runId]);
  if (seen.rowCount === 0) {
    const next = mutate(null);
    if (next === null) return { before: null, after: null, changed: false };
    const inserted = await insertRun(pool, runId, next);
    if (inserted !== null) return { before: null, after: inserted, changed: true };
  }
  return mutateRunAndAppend(pool, runId, mutate, () => []);
}

/**
 * The run locked for a read-modify-write (null when absent), with the transaction's id for the
 * stamps of the events the write appends.
 */
async function lockRun(client: Queryable, runId: string): Promise<{ tx: number; locked: RunRecord | null }> {
  const { rows } = await client.query<{ tx: string; doc: string | null }>({
    name: 'run-lock',
    text: `SELECT x.tx, l.doc FROM (SELECT ${TX_ID}) AS x LEFT JOIN LATERAL (SELECT doc::text AS doc FROM runs WHERE run_id = $1 FOR UPDATE) AS l ON true`,
    values: [runId],
  });
  const row = rows[0]!;
  return { tx: Number(row.tx), locked: row.doc === null ? null : frozenRun(row.doc) };
}

/**
 * The run's read-modify-write and the records it appends (an admission's telemetry) in one
 * transaction: one commit, so the write waits for one WAL flush instead of the run's and then
 * its appends'. The appends follow the run's row lock, and a retry after a lost insert appends
 * only for the record that was stored.
 */
export async function mutateRunAndAppend(pool: pg.Pool, runId: string, mutate: RunMutator, appendsFor: AppendsFor): Promise<MutateResult> {
  for (;;) {
    const outcome = await withTransaction(pool, async (client): Promise<MutateResult | 'lost-insert'> => {
      const { tx, locked } = await lockRun(client, runId);
      const before = locked;
      const next = mutate(before);
      if (next === null) return { before, after: before, changed: false };
      let result: MutateResult;
      if (before !== null) {
        result = { before, after: await updateRun(client, stampedIn(before, storedRun(runId, before, next, () => before.seq), tx)), changed: true };
      } else {
        const inserted = await insertStampedRun(client, stampedIn(null, storedRun(runId, null, next, () => 0), tx));
        if (inserted === null) return 'lost-insert';
        result = { before: null, after: inserted, changed: true };
      }
      for (const { collection, record, keep } of appendsFor(result)) await appendRecord(client, collection, record, retentionCount(keep));
      return result;
    });
    if (outcome !== 'lost-insert') return outcome;
  }
}

/**
 * An attempt's final write: the run locked and transitioned, then the task's state change and
 * record, in one transaction. The run row is locked before the state row, as nowhere the other
 * way round, so two finishing attempts cannot deadlock.
 */
export function finishRun(pool: pg.Pool, stateKey: string, runId: string, mutate: RunMutator, task: TaskOutcomeWrite): Promise<MutateResult> {
  return withTransaction(pool, async (client) => {
    const { tx, locked } = await lockRun(client, runId);
    const before = locked;
    const next = before === null ? null : mutate(before);
    // Only an existing run can finish an attempt: an absent one is left absent.
    if (before === null || next === null) return { before, after: before, changed: false };
    const after = await updateRun(client, stampedIn(before, storedRun(runId, before, next, () => before.seq), tx));
    if (task.stateUpdate) await mutateStateIn(client, stateKey, task.stateUpdate);
    await recordTaskIn(client, stateKey, task.record);
    return { before, after, changed: true };
  });
}
