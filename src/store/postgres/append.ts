import type pg from 'pg';
import { ProgrammingError } from '../../domain/errors.js';
import type { AppendCollection } from '../types.js';
import { joinRecords, splitRecords } from './record-text.js';
import type { Queryable } from './transaction.js';

/** The sequence numbering each collection's rows (layout 2); names from this fixed map only. */
const SEQUENCES: Readonly<Record<AppendCollection, string>> = {
  telemetry: 'appended_seq_telemetry',
  milestones: 'appended_seq_milestones',
};

function sequenceOf(collection: AppendCollection): string {
  if (!Object.hasOwn(SEQUENCES, collection)) throw new ProgrammingError(`unknown append collection ${String(collection)}`);
  return SEQUENCES[collection];
}

function checkCollection(collection: AppendCollection): void {
  sequenceOf(collection);
}

/**
 * Appends one record and drops all but the newest `keep` of its collection, in one statement
 * (one round trip: committed on its own through the pool, or with the rest of a transaction).
 * The record takes the next number of its collection's sequence, and the rows numbered `keep` or
 * more below it go: an index range over the rows that leave, not a walk over the ones that stay.
 * An append racing on another connection may commit a number below this cut after this
 * statement's snapshot was taken, so a few more than `keep` can remain until the next append,
 * which removes them. A number taken by an insert that then failed is a gap: until `keep` more
 * appends pass it, the collection holds one record fewer than `keep`.
 *
 * Rows another transaction is already deleting are skipped (`SKIP LOCKED`), not waited for:
 * consecutive appends' cuts overlap (each removes every row `keep` below its own number), and an
 * append inside a longer transaction (an admission with its run) holds its deletions until that
 * commits. Waiting made every admission queue behind the previous one's commit once the
 * collection was full: one WAL flush at a time, 54 admissions/s where 400 went before. A skipped
 * row is gone when that transaction commits, or taken by the next append's cut if it rolls back.
 */
export async function appendRecord(db: Queryable, collection: AppendCollection, record: Record<string, unknown>, keep: number): Promise<void> {
  const sequence = sequenceOf(collection);
  if (keep < 1) {
    // Keeping none: nothing is inserted and whatever the collection held goes.
    await db.query('DELETE FROM appended WHERE collection = $1', [collection]);
    return;
  }
  await db.query(
    `WITH added AS (
       INSERT INTO appended (collection, seq, record) VALUES ($1, nextval('${sequence}'), $2::jsonb) RETURNING seq
     ), leaving AS (
       SELECT id FROM appended WHERE collection = $1 AND seq <= (SELECT seq FROM added) - $3 FOR UPDATE SKIP LOCKED
     )
     DELETE FROM appended WHERE id IN (SELECT id FROM leaving)`,
    [collection, JSON.stringify(record), keep],
  );
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

/**
 * appendRecord for several records of one collection with one `keep`, in one statement: numbered
 * in the order given, and the rows `keep` or more below the newest of them removed (the same
 * cut, `SKIP LOCKED`, as appendRecord).
 */
export async function appendRecords(db: Queryable, collection: AppendCollection, records: Array<Record<string, unknown>>, keep: number): Promise<void> {
  if (records.length === 0) return;
  if (keep < 1 || records.length === 1) {
    for (const record of records) await appendRecord(db, collection, record, keep);
    return;
  }
  const sequence = sequenceOf(collection);
  await db.query({
    name: `appended-insert-many-${collection}`,
    text: `WITH added AS (
       INSERT INTO appended (collection, seq, record)
       SELECT $1, nextval('${sequence}'), u.record::jsonb FROM unnest(${splitRecords('$2')}) WITH ORDINALITY AS u(record, ord) ORDER BY u.ord
       RETURNING seq
     ), leaving AS (
       SELECT id FROM appended WHERE collection = $1 AND seq <= (SELECT MAX(seq) FROM added) - $3 FOR UPDATE SKIP LOCKED
     )
     DELETE FROM appended WHERE id IN (SELECT id FROM leaving)`,
    values: [collection, joinRecords(records.map((record) => JSON.stringify(record))), keep],
  });
}
