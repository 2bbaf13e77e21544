import type { RunRecord } from '../../domain/run-record.js';
import { runProblem } from '../record-checks.js';
import { stateCorrupt } from '../types.js';
import type { Queryable } from './transaction.js';

/** Runs read back from a `doc` column: a fresh object per read, so callers may change it freely. */
export function runFromRow(row: { doc: RunRecord }): RunRecord {
  return row.doc;
}

/** The record as it will be stored (a JSON round trip), refused when a restart could not read it back. */
function checked(run: RunRecord): { stored: RunRecord; doc: string } {
  const doc = JSON.stringify(run);
  const stored = JSON.parse(doc) as RunRecord;
  const problem = runProblem(stored, 'run');
  if (problem !== null) throw stateCorrupt(`refusing to store run ${run.runId}: ${problem}`);
  return { stored, doc };
}

/** Column values after run_id and seq, in the order of the statements below. */
function columns(run: RunRecord, doc: string): unknown[] {
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
 * pool it is one round trip, committed on its own.
 */
export async function insertRun(db: Queryable, run: RunRecord): Promise<RunRecord | null> {
  // Checked with a placeholder number: the real one comes from the sequence.
  const { stored, doc } = checked({ ...run, seq: 1 });
  const result = await db.query<{ seq: string }>(
    `INSERT INTO runs (run_id, seq, type, status, queue_state, internal, attempt, lease_owner, lease_until, created_at, updated_at, doc)
     SELECT $1, n.seq, $2, $3, $4, $5, $6, $7, $8, $9, $10, jsonb_set($11::jsonb, '{seq}', to_jsonb(n.seq))
     FROM (SELECT nextval('run_seq') AS seq) AS n
     ON CONFLICT (run_id) DO NOTHING
     RETURNING seq`,
    [stored.runId, ...columns(stored, doc)],
  );
  const row = result.rows[0];
  return row === undefined ? null : { ...stored, seq: Number(row.seq) };
}

/** Replaces an existing run (locked by the caller); `seq` is never changed. */
export async function updateRun(db: Queryable, run: RunRecord): Promise<RunRecord> {
  const { stored, doc } = checked(run);
  await db.query(
    `UPDATE runs SET type = $3, status = $4, queue_state = $5, internal = $6, attempt = $7, lease_owner = $8,
       lease_until = $9, created_at = $10, updated_at = $11, doc = $12::jsonb
     WHERE run_id = $1 AND seq = $2`,
    [stored.runId, stored.seq, ...columns(stored, doc)],
  );
  return stored;
}
