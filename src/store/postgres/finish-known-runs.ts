import type pg from 'pg';
import { STATE_BOUNDS } from '../../domain/orchestrator-state.js';
import type { RunRecord } from '../../domain/run-record.js';
import { storedRun } from '../run-rules.js';
import type { MutateResult } from '../types.js';
import { IN_BATCH } from './group-commit.js';
import type { KnownRuns } from './known-runs.js';
import { joinRecords, splitRecords } from './record-text.js';
import type { RunFinish } from './run-batches.js';
import { checkedOver, stampedIn } from './save-run.js';
import { columnsOf, RUN_COLUMNS } from './save-runs.js';
import { taskRecordCtesOf } from './state.js';
import { PENDING_TX, stampableInSql, stampedAs, stampedDoc, stampOf } from './sql-stamps.js';

/** How many runs the statement's update finished. */
const FINISHED = '(SELECT COUNT(*)::int FROM finished)';

interface KnownFinish {
  index: number;
  before: RunRecord;
  stored: RunRecord;
  doc: string;
  xmin: number;
  record: string;
}

/** The finish as written over the remembered record, or null for one the transaction must settle. */
function finishOf(item: RunFinish, index: number, known: KnownRuns): KnownFinish | null {
  const run = known.take(item.runId);
  // A handler's change to the state document needs the document's lock: the transaction's path.
  if (run === undefined || item.task.stateUpdate) return null;
  try {
    const before = run.run;
    const next = item.mutate(before);
    if (next === null) return null;
    const { stored, doc } = checkedOver(before, stampedIn(before, storedRun(item.runId, before, next, () => before.seq), PENDING_TX).run);
    if (!stampableInSql(stored, doc)) return null;
    return { index, before, stored, doc, xmin: run.xmin, record: JSON.stringify(item.task.record) };
  } catch {
    return null;
  }
}

/**
 * Final writes of runs this instance wrote running and nobody has written since, with their
 * task records, by one statement that is its own commit: no `BEGIN`, no lock and read of the
 * runs, no `COMMIT`. Each run's mutator is applied to the record as this instance wrote it
 * (KnownRuns), and the statement updates the row only while its `xmin` is still that write's
 * transaction, so the record it replaces is the one the mutator saw. The count delta, history
 * rows and trim are those of finish-many (state.ts), for the runs the statement updated only.
 *
 * A run written since (cancelled, its lease taken over), not remembered, or finishing with a
 * change to the state document is answered IN_BATCH: the batch's transaction locks and reads it.
 */
export async function finishKnownRuns(pool: pg.Pool, stateKey: string, items: RunFinish[], known: KnownRuns): Promise<Array<MutateResult | typeof IN_BATCH>> {
  const outcomes: Array<MutateResult | typeof IN_BATCH> = items.map(() => IN_BATCH);
  const finishes = items.flatMap((item, index) => finishOf(item, index, known) ?? []);
  if (finishes.length === 0) return outcomes;
  const { rows } = await pool.query<{ run_id: string; tx: string }>({
    name: 'finish-known-runs',
    // OFFSET 0 keeps the records' subquery as it is: each record's text is stamped and parsed
    // once. Flattened into the update, every column read from the record parsed it again.
    text: `WITH x AS (SELECT pg_current_xact_id()::text AS tx),
     finished AS (
       UPDATE runs AS r SET (${RUN_COLUMNS}, doc, last_tx) = (${columnsOf('v.doc')}, v.doc, COALESCE(v.last_tx, r.last_tx))
       FROM (
         SELECT ${stampedDoc('u.doc', '(SELECT tx FROM x)')} AS doc, u.xmin, ${stampOf('u.doc', '(SELECT tx FROM x)')} AS last_tx
         FROM unnest(${splitRecords('$1')}, $2::bigint[]) AS u(doc, xmin) OFFSET 0
       ) AS v
       WHERE r.run_id = v.doc->>'runId' AND r.xmin::text::bigint = v.xmin
       RETURNING r.run_id
     ), ${taskRecordCtesOf({
       key: '$3::text',
       rows: `unnest(${splitRecords('$4')}, $5::text[]) WITH ORDINALITY AS u(record, run_id, ord) WHERE u.run_id IN (SELECT run_id FROM finished)`,
       n: FINISHED,
       keepBefore: `GREATEST(0, ${STATE_BOUNDS.taskHistory} - ${FINISHED})`,
     })}
     SELECT finished.run_id, (SELECT tx FROM x) AS tx FROM finished`,
    values: [
      joinRecords(finishes.map((finish) => finish.doc)),
      finishes.map((finish) => finish.xmin),
      stateKey,
      joinRecords(finishes.map((finish) => finish.record)),
      finishes.map((finish) => finish.stored.runId),
    ],
  });
  const done = new Map(rows.map((row) => [row.run_id, Number(row.tx)]));
  for (const { index, before, stored } of finishes) {
    const tx = done.get(stored.runId);
    if (tx !== undefined) outcomes[index] = { before, after: stampedAs(stored, tx), changed: true };
  }
  return outcomes;
}
