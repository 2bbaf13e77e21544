import type pg from 'pg';
import type { AppendCollection } from '../types.js';
import { withTransaction } from './transaction.js';

const APPEND_COLLECTIONS: readonly AppendCollection[] = ['telemetry', 'milestones'];

function checkCollection(collection: AppendCollection): void {
  if (!APPEND_COLLECTIONS.includes(collection)) throw new Error(`unknown append collection ${String(collection)}`);
}

/**
 * Appends one record and drops all but the newest `keep` of its collection. One statement (one
 * round trip, committed on its own): the trim runs on the snapshot taken before the insert, so
 * it keeps `keep - 1` older records. Appends racing on other connections may leave a few more
 * than `keep` until the next append trims them.
 */
export async function appendRecord(pool: pg.Pool, collection: AppendCollection, record: Record<string, unknown>, keep: number): Promise<void> {
  checkCollection(collection);
  if (keep >= 1) {
    await pool.query(
      `WITH added AS (INSERT INTO appended (collection, record) VALUES ($1, $2::jsonb) RETURNING id)
       DELETE FROM appended WHERE collection = $1 AND id <= (
         SELECT id FROM appended WHERE collection = $1 ORDER BY id DESC LIMIT 1 OFFSET $3
       )`,
      [collection, JSON.stringify(record), keep - 1],
    );
    return;
  }
  return withTransaction(pool, async (client) => {
    await client.query('INSERT INTO appended (collection, record) VALUES ($1, $2::jsonb)', [collection, JSON.stringify(record)]);
    // Rows older than the keep-th newest; with fewer rows the subquery is NULL and nothing goes.
    await client.query(
      `DELETE FROM appended WHERE collection = $1 AND id <= (
         SELECT id FROM appended WHERE collection = $1 ORDER BY id DESC LIMIT 1 OFFSET $2
       )`,
      [collection, keep],
    );
  });
}

export async function listAppended(
  pool: pg.Pool,
  collection: AppendCollection,
  query: { limit: number; offset?: number },
): Promise<{ items: Record<string, unknown>[]; total: number }> {
  checkCollection(collection);
  const limit = Math.max(0, Math.floor(query.limit));
  const offset = Math.max(0, Math.floor(query.offset ?? 0));
  const [page, total] = await Promise.all([
    pool.query<{ record: Record<string, unknown> }>(
      'SELECT record FROM appended WHERE collection = $1 ORDER BY id DESC LIMIT $2 OFFSET $3',
      [collection, limit, offset],
    ),
    pool.query<{ n: string }>('SELECT COUNT(*) AS n FROM appended WHERE collection = $1', [collection]),
  ]);
  return { items: page.rows.map((row) => row.record), total: Number(total.rows[0]!.n) };
}
