import type pg from 'pg';
import type { RunRecord } from '../../tasks/types.js';
import { storedRun } from '../run-rules.js';
import type { MutateResult, RunMutator } from '../types.js';
import { insertRun, nextRunSeq, runFromRow, updateRun } from './save-run.js';
import { withTransaction } from './transaction.js';

/**
 * Atomic read-modify-write of one run. An existing run is locked (`FOR UPDATE`) for the
 * transaction, so the mutator sees the latest committed record and no other instance can
 * change it meanwhile. A new run is inserted with `ON CONFLICT DO NOTHING`: when another
 * instance admitted the same id first, the mutator runs again on that record (mutators are
 * pure, so this is safe) - admission is decided by the unique key, never by a read in here.
 */
export async function mutateRun(pool: pg.Pool, runId: string, mutate: RunMutator): Promise<MutateResult> {
  for (;;) {
    const outcome = await withTransaction(pool, async (client): Promise<MutateResult | 'lost-insert'> => {
      const { rows } = await client.query<{ doc: RunRecord }>('SELECT doc FROM runs WHERE run_id = $1 FOR UPDATE', [runId]);
      const before = rows[0] ? runFromRow(rows[0]) : null;
      const next = mutate(before === null ? null : structuredClone(before));
      if (next === null) return { before, after: before === null ? null : structuredClone(before), changed: false };
      if (before !== null) {
        const after = await updateRun(client, storedRun(runId, before, next, () => before.seq));
        return { before, after, changed: true };
      }
      const candidate = storedRun(runId, null, next, () => 0);
      const inserted = await insertRun(client, { ...candidate, seq: await nextRunSeq(client) });
      return inserted === null ? 'lost-insert' : { before: null, after: inserted, changed: true };
    });
    if (outcome !== 'lost-insert') return outcome;
  }
}
