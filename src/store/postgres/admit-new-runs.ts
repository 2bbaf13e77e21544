import type pg from 'pg';
import type { RunRecord } from '../../domain/run-record.js';
import { storedRun } from '../run-rules.js';
import { retentionCount } from '../retention.js';
import type { AppendCollection, MutateResult } from '../types.js';
import { rowsPushedOut, sequenceOf } from './append.js';
import { IN_BATCH } from './group-commit.js';
import { joinRecords, splitRecords } from './record-text.js';
import type { RunWrite } from './run-batches.js';
import { checkedUnnumbered, stampedIn } from './save-run.js';
import { columnsOf, RUN_COLUMNS } from './save-runs.js';
import { numberableInSql, PENDING_SEQ, PENDING_TX, stampableInSql, stampedAs, stampedNumberedDoc, stampOf } from './sql-stamps.js';

interface NewRun {
  index: number;
  stored: RunRecord;
  doc: string;
  appends: Array<Record<string, unknown>>;
}

/**
 * The batch's new runs as they would be inserted, or null for an item the transaction must
 * settle: a mutator that declines or throws for an absent run, a record whose text holds the
 * pending stamp other than in its new events' stamps (a payload could), appends to more than one
 * collection or retention.
 */
function newRunOf(item: RunWrite, index: number, into: { collection: AppendCollection | null; keep: number | null }): NewRun | null {
  let next: RunRecord | null;
  try {
    next = item.mutate(null);
    if (next === null) return null;
    const stamped = stampedIn(null, storedRun(item.runId, null, next, () => PENDING_SEQ), PENDING_TX).run;
    const { stored, doc } = checkedUnnumbered(stamped);
    if (!stampableInSql(stored, doc) || !numberableInSql(doc)) return null;
    const appends = item.appendsFor({ before: null, after: stored, changed: true });
    for (const { collection, keep } of appends) {
      const count = retentionCount(keep);
      if (count < 1 || (into.collection ?? collection) !== collection || (into.keep ?? count) !== count) return null;
      into.collection = collection;
      into.keep = count;
    }
    return { index, stored, doc, appends: appends.map((append) => append.record) };
  } catch {
    return null;
  }
}

/**
 * New runs admitted together, inserted with their appends (an admission's telemetry) by one
 * statement that is its own commit: no `BEGIN`, no lock of the batch's rows, no `COMMIT`, one
 * round trip where the transaction took five. Each record is built as its mutator builds it for
 * an absent run; the statement numbers it, stamps its new events with the statement's
 * transaction id (sql-stamps.ts), inserts it unless its id is taken
 * (`ON CONFLICT DO NOTHING`), and appends and trims for the records it inserted only.
 *
 * An item whose run already exists (a duplicate key, a retry) is answered IN_BATCH and settled
 * by the batch's transaction, where its mutator sees that run; so is every item `newRunOf`
 * declines. `appendsFor` is asked before the insert, with the record as it will be stored but
 * for its `seq` and its new events' stamps.
 */
export async function admitNewRuns(pool: pg.Pool, items: RunWrite[]): Promise<Array<MutateResult | typeof IN_BATCH>> {
  const target: { collection: AppendCollection | null; keep: number | null } = { collection: null, keep: null };
  const candidates: NewRun[] = [];
  const outcomes: Array<MutateResult | typeof IN_BATCH> = items.map(() => IN_BATCH);
  items.forEach((item, index) => {
    const run = newRunOf(item, index, target);
    if (run !== null) candidates.push(run);
  });
  if (candidates.length === 0) return outcomes;
  const collection = target.collection ?? 'telemetry';
  const sequence = sequenceOf(collection);
  const appended = candidates.flatMap((run) => run.appends.map((record) => ({ runId: run.stored.runId, text: JSON.stringify(record) })));
  const { rows } = await pool.query<{ run_id: string; seq: string; tx: string }>({
    name: `admit-new-runs-${collection}`,
    // Each OFFSET 0 keeps its subquery as it is: each row draws nextval once, in batch order,
    // and its text is converted to jsonb once, not once per column read from it.
    text: `WITH x AS (SELECT pg_current_xact_id()::text AS tx),
     w AS (
       SELECT u.doc, nextval('run_seq') AS seq
       FROM unnest(${splitRecords('$1')}) WITH ORDINALITY AS u(doc, ord)
       ORDER BY u.ord OFFSET 0
     ), v AS (
       SELECT ${stampedNumberedDoc('w.doc', 'x.tx', 'w.seq')} AS doc, w.seq, COALESCE(${stampOf('w.doc', 'x.tx')}, 0) AS last_tx
       FROM w, x OFFSET 0
     ), inserted AS (
       INSERT INTO runs (run_id, seq, ${RUN_COLUMNS}, doc, last_tx)
       SELECT v.doc->>'runId', v.seq, ${columnsOf('v.doc')}, v.doc, v.last_tx
       FROM v
       ON CONFLICT (run_id) DO NOTHING
       RETURNING run_id, seq
     ), added AS (
       INSERT INTO appended (collection, seq, record)
       SELECT $4, nextval('${sequence}'), a.record::jsonb
       FROM unnest(${splitRecords('$2')}, $3::text[]) WITH ORDINALITY AS a(record, run_id, ord)
       WHERE a.run_id IN (SELECT run_id FROM inserted)
       ORDER BY a.ord
       RETURNING seq
     ), leaving AS (${rowsPushedOut('$4', '$5')}), trimmed AS (
       DELETE FROM appended WHERE id IN (SELECT id FROM leaving)
     )
     SELECT inserted.run_id, inserted.seq, (SELECT tx FROM x) AS tx FROM inserted`,
    values: [
      joinRecords(candidates.map((run) => run.doc)),
      joinRecords(appended.map((append) => append.text)),
      appended.map((append) => append.runId),
      collection,
      target.keep ?? 1,
    ],
  });
  const byId = new Map(rows.map((row) => [row.run_id, row]));
  for (const { index, stored } of candidates) {
    const row = byId.get(stored.runId);
    if (row === undefined) continue;
    outcomes[index] = { before: null, after: { ...stampedAs(stored, Number(row.tx)), seq: Number(row.seq) }, changed: true };
  }
  return outcomes;
}
