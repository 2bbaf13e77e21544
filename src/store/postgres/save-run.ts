import type { RunRecord } from '../../domain/run-record.js';
import { appendsEvents, stampNewEvents } from '../run-event-stamps.js';
import { runProblem } from '../record-checks.js';
import { stateCorrupt } from '../types.js';
import { deepFreeze } from '../deep-freeze.js';
import { jsonOver } from '../json-over.js';
import { storedRun } from '../run-rules.js';
import { numberableInSql, PENDING_SEQ, PENDING_TX, stampableInSql, stampedAs, stampedNumberedDoc, stampOf } from './sql-stamps.js';
import type { Queryable } from './transaction.js';

/** Runs read back from a `doc` column: a fresh object per read, so callers may change it freely. */
export function runFromRow(row: { doc: RunRecord }): RunRecord {
  return row.doc;
}

/**
 * A run read for a read-modify-write, parsed from its JSON text (`doc::text`) and deep-frozen:
 * the mutator gets this record itself, and it is the write's `before`. Mutators are pure (the
 * file and SQLite stores hand them their frozen stored records too), so one parse and a freeze
 * do what a parse per copy (or a structuredClone) did.
 */
export function frozenRun(text: string): RunRecord {
  return deepFreeze(JSON.parse(text) as RunRecord);
}

/**
 * The writing transaction's id as the first statement of a write's transaction returns it
 * (its row locks have given the transaction an id already). New events are stamped with it in
 * the service, so the statement that stores the record sends it as it is: stamping inside that
 * statement (`run_events_stamped`, migration 3) cost the database a SQL function call per row,
 * about a tenth of its CPU per run.
 */
export const TX_ID = 'pg_current_xact_id()::text AS tx';

/** A record to store with the `last_tx` of its row: the transaction's id when it appends events, else null (unchanged; 0 for a new row). */
export interface StampedRun {
  run: RunRecord;
  lastTx: number | null;
}

/** `next` with the events it appends over `current` stamped by the transaction `tx`. */
export function stampedIn(current: RunRecord | null, next: RunRecord, tx: number): StampedRun {
  return appendsEvents(current, next) ? { run: stampNewEvents(current, next, () => tx), lastTx: tx } : { run: next, lastTx: null };
}

/**
 * `checked` for a record its mutator made over `before`, a deep-frozen record read back from
 * JSON: the round trip without the parse where the new parts allow it (json-over.ts), so
 * `stored` shares `before`'s unchanged parts.
 */
export function checkedOver(before: RunRecord, run: RunRecord): { stored: RunRecord; doc: string } {
  const doc = JSON.stringify(run);
  const stored = jsonOver(before, run, doc);
  const problem = runProblem(stored, 'run');
  if (problem !== null) throw stateCorrupt(`refusing to store run ${run.runId}: ${problem}`);
  return { stored, doc };
}

/** The record as it will be stored (a JSON round trip), refused when a restart could not read it back. */
export function checked(run: RunRecord): { stored: RunRecord; doc: string } {
  const doc = JSON.stringify(run);
  const stored = JSON.parse(doc) as RunRecord;
  const problem = runProblem(stored, 'run');
  if (problem !== null) throw stateCorrupt(`refusing to store run ${run.runId}: ${problem}`);
  return { stored, doc };
}

/**
 * `checked` for a new run whose text holds the pending number (sql-stamps.ts PENDING_SEQ) in
 * place of its seq: checked as numbered 1, and `stored` keeps 1 until the statement's number
 * replaces it. The text is not parsed back but the record copied as the parse would return it
 * (json-over.ts; the parse was a fifth of the admission's own CPU).
 */
export function checkedUnnumbered(run: RunRecord): { stored: RunRecord; doc: string } {
  const doc = JSON.stringify(run);
  const stored = jsonOver(null, run, doc);
  stored.seq = 1;
  const problem = runProblem(stored, 'run');
  if (problem !== null) throw stateCorrupt(`refusing to store run ${run.runId}: ${problem}`);
  return { stored, doc };
}

/** Column values after run_id and seq, in the order of the statements below (save-runs.ts `columnsOf` reads the same from the record in SQL). */
export function columns(run: RunRecord, doc: string): unknown[] {
  return [
    run.type,
    run.status,
    run.queueState,
    run.internal,
    run.attempt ?? 1,
    run.claim?.ownerId ?? null,
    run.claim?.leaseUntil ?? null,
    run.createdAt ?? null,
    run.updatedAt ?? null,
    doc,
  ];
}

/**
 * Inserts a new run, numbered from the `run_seq` sequence in the same statement; the unique run
 * id decides between concurrent admissions of one key (`ON CONFLICT DO NOTHING`). Returns the
 * stored run, or null when another transaction inserted that id first. One statement: on the
 * pool it is one round trip, committed on its own, so its new events carry the pending stamp and
 * the statement writes its transaction's id in their place (sql-stamps.ts), as admitNewRuns does.
 * Null too when the record cannot be stamped that way (a payload holds the pending stamp's
 * text): the caller then writes it in a transaction of its own.
 */
export async function insertRun(db: Queryable, runId: string, next: RunRecord): Promise<RunRecord | null> {
  const { stored, doc } = checkedUnnumbered(stampedIn(null, storedRun(runId, null, next, () => PENDING_SEQ), PENDING_TX).run);
  if (!stampableInSql(stored, doc) || !numberableInSql(doc)) return null;
  const result = await db.query<{ seq: string; last_tx: string }>({
    name: 'run-insert',
    text: `INSERT INTO runs (run_id, seq, type, status, queue_state, internal, attempt, lease_owner, lease_until, created_at, updated_at, doc, last_tx)
     SELECT $1, n.seq, $2, $3, $4, $5, $6, $7, $8, $9, $10, ${stampedNumberedDoc('$11::text', 'x.tx', 'n.seq')}, COALESCE(${stampOf('$11::text', 'x.tx')}, 0)
     FROM (SELECT nextval('run_seq') AS seq) AS n, (SELECT pg_current_xact_id()::text AS tx) AS x
     ON CONFLICT (run_id) DO NOTHING
     RETURNING seq, last_tx`,
    values: [stored.runId, ...columns(stored, doc)],
  });
  const row = result.rows[0];
  if (row === undefined) return null;
  return { ...stampedAs(stored, Number(row.last_tx)), seq: Number(row.seq) };
}

/**
 * Inserts a new run inside a transaction whose id stamped its events; numbered as insertRun.
 * Null when another transaction inserted that id first.
 */
export async function insertStampedRun(db: Queryable, { run, lastTx }: StampedRun): Promise<RunRecord | null> {
  const { stored, doc } = checked({ ...run, seq: 1 });
  const result = await db.query<{ seq: string }>({
    name: 'run-insert-stamped',
    text: `INSERT INTO runs (run_id, seq, type, status, queue_state, internal, attempt, lease_owner, lease_until, created_at, updated_at, doc, last_tx)
     SELECT $1, n.seq, $2, $3, $4, $5, $6, $7, $8, $9, $10, jsonb_set($11::jsonb, '{seq}', to_jsonb(n.seq)), $12
     FROM (SELECT nextval('run_seq') AS seq) AS n
     ON CONFLICT (run_id) DO NOTHING
     RETURNING seq`,
    values: [stored.runId, ...columns(stored, doc), lastTx ?? 0],
  });
  const row = result.rows[0];
  return row === undefined ? null : { ...stored, seq: Number(row.seq) };
}

/** Replaces an existing run (locked by the caller, in the transaction that stamped it); `seq` is never changed. */
export async function updateRun(db: Queryable, { run, lastTx }: StampedRun): Promise<RunRecord> {
  const { stored, doc } = checked(run);
  await db.query({
    name: 'run-update-stamped',
    text: `UPDATE runs SET type = $3, status = $4, queue_state = $5, internal = $6, attempt = $7, lease_owner = $8,
       lease_until = $9, created_at = $10, updated_at = $11, doc = $12::jsonb, last_tx = COALESCE($13, last_tx)
     WHERE run_id = $1 AND seq = $2`,
    values: [stored.runId, stored.seq, ...columns(stored, doc), lastTx],
  });
  return stored;
}
