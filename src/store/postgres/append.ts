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

export function sequenceOf(collection: AppendCollection): string {
  if (!Object.hasOwn(SEQUENCES, collection)) throw new ProgrammingError(`unknown append collection ${String(collection)}`);
  return SEQUENCES[collection];
}

function checkCollection(collection: AppendCollection): void {
  sequenceOf(collection);
}

/**
 * How far below the rows its own records push out an append's trim also looks: rows left there
 * by a racing append that committed after the trim covering it, or skipped by an earlier trim.
 */
const TRIM_SLACK = 64;
/** An append whose numbers cross a multiple of this also trims the whole range below its cut. */
const FULL_TRIM_EVERY = 4096;

/**
 * The rows of the collection (parameter `collection`) that the records `added` (a CTE returning
 * `seq`) push out of the newest `keep` (parameter `keep`), locked for deletion: those numbered `keep` below each added record,
 * and the `TRIM_SLACK` just below them.
 *
 * Not every row below the cut: deleted rows stay in the index until a vacuum, and a range from
 * the collection's start walked all of them on every append (7.5 million index entries read for
 * 8,000 runs with three instances, PostgreSQL's CPU per run climbing with every run since the
 * last vacuum). Rows left below the window (an append that drew its number and rolled back, a
 * racing append that committed after the trim that covered it) are taken by the full trim that
 * one append in `FULL_TRIM_EVERY` makes.
 *
 * Rows another transaction is already deleting are skipped (`SKIP LOCKED`), not waited for: an
 * append inside a longer transaction (an admission with its run) holds its deletions until that
 * commits. Waiting made every admission queue behind the previous one's commit once the
 * collection was full: one WAL flush at a time, 54 admissions/s where 400 went before. A skipped
 * row is gone when that transaction commits, or taken by a later trim if it rolls back.
 */
export function rowsPushedOut(collection = '$1', keep = '$3'): string {
  return `SELECT id FROM appended WHERE collection = ${collection}
       AND seq <= (SELECT MAX(seq) FROM added) - ${keep}
       AND seq > (SELECT CASE WHEN MAX(seq) / ${FULL_TRIM_EVERY} > (MIN(seq) - 1) / ${FULL_TRIM_EVERY} THEN 0 ELSE MIN(seq) - ${keep} - ${TRIM_SLACK} END FROM added)
       FOR UPDATE SKIP LOCKED`;
}

/**
 * Appends one record and trims the collection to its newest `keep` (rowsPushedOut), in one
 * statement (one round trip: committed on its own through the pool, or with the rest of a
 * transaction). The record takes the next number of its collection's sequence. An append racing
 * on another connection may commit a number below this cut after this statement's snapshot was
 * taken, so a few more than `keep` can remain until a later trim removes them. A number taken by
 * an insert that then failed is a gap: until `keep` more appends pass it, the collection holds
 * one record fewer than `keep`.
 */
export async function appendRecord(db: Queryable, collection: AppendCollection, record: Record<string, unknown>, keep: number): Promise<void> {
  const sequence = sequenceOf(collection);
  if (keep < 1) {
    // Keeping none: nothing is inserted and whatever the collection held goes.
    await db.query('DELETE FROM appended WHERE collection = $1', [collection]);
    return;
  }
  await db.query({
    name: `appended-insert-${collection}`,
    text: `WITH added AS (
       INSERT INTO appended (collection, seq, record) VALUES ($1, nextval('${sequence}'), $2::jsonb) RETURNING seq
     ), leaving AS (${rowsPushedOut()})
     DELETE FROM appended WHERE id IN (SELECT id FROM leaving)`,
    values: [collection, JSON.stringify(record), keep],
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

/**
 * appendRecord for several records of one collection with one `keep`, in one statement: numbered
 * in the order given, and the rows they push out of the newest `keep` removed (the same trim as
 * appendRecord's).
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
     ), leaving AS (${rowsPushedOut()})
     DELETE FROM appended WHERE id IN (SELECT id FROM leaving)`,
    values: [collection, joinRecords(records.map((record) => JSON.stringify(record))), keep],
  });
}
