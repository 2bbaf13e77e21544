import type pg from 'pg';
import { PRUNABLE_STATUSES } from '../run-rules.js';
import { withTransaction } from './transaction.js';

/**
 * Deletes the oldest finished runs so that at most `keep` runs remain (unfinished ones always
 * stay). Rows another instance holds locked are skipped rather than waited on; they go next time.
 */
export async function pruneRuns(pool: pg.Pool, keep: number): Promise<number> {
  // Run numbers are unique, so the rows are at most the span from the oldest to the newest: two
  // index lookups. Every instance prunes every few seconds, and below the retention (the common
  // case) a COUNT(*) walked the whole table each time for nothing.
  const { rows: span } = await pool.query<{ n: string | null }>({ name: 'runs-seq-span', text: 'SELECT MAX(seq) - MIN(seq) + 1 AS n FROM runs' });
  if (Number(span[0]?.n ?? 0) <= keep) return 0;
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<{ n: string }>('SELECT COUNT(*) AS n FROM runs');
    const excess = Number(rows[0]!.n) - keep;
    if (excess <= 0) return 0;
    const deleted = await client.query(
      `DELETE FROM runs WHERE run_id IN (
         SELECT run_id FROM runs WHERE status = ANY($1::text[]) ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED
       )`,
      [PRUNABLE_STATUSES, excess],
    );
    return deleted.rowCount ?? 0;
  });
}
