import type { RunRecord } from '../../tasks/types.js';
import { runProblem } from '../record-checks.js';
import type { Queryable } from './transaction.js';

/** Runs read back from a `doc` column: a fresh object per read, so callers may change it freely. */
export function runFromRow(row: { doc: RunRecord }): RunRecord {
  return row.doc;
}

/** The next admission number; sequences never hand a number out twice, pruned or not. */
export async function nextRunSeq(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ seq: string }>("SELECT nextval('run_seq') AS seq");
  return Number(rows[0]!.seq);
}

function checked(run: RunRecord): { stored: RunRecord; doc: string } {
  const doc = JSON.stringify(run);
  const stored = JSON.parse(doc) as RunRecord;
  const problem = runProblem(stored, 'run');
  if (problem !== null) throw new Error(`refusing to store run ${run.runId}: ${problem}`);
  return { stored, doc };
}

function columns(run: RunRecord, doc: string): unknown[] {
  return [
    run.runId,
    run.seq,
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
 * Inserts a new run; the unique run id decides between concurrent admissions of one key
 * (`ON CONFLICT DO NOTHING`). Null when another transaction inserted it first.
 */
export async function insertRun(db: Queryable, run: RunRecord): Promise<RunRecord | null> {
  const { stored, doc } = checked(run);
  const result = await db.query(
    `INSERT INTO runs (run_id, seq, type, status, queue_state, internal, attempt, lease_owner, lease_until, created_at, updated_at, doc)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb)
     ON CONFLICT (run_id) DO NOTHING`,
    columns(stored, doc),
  );
  return result.rowCount === 1 ? stored : null;
}

/** Replaces an existing run (locked by the caller); `seq` is never changed. */
export async function updateRun(db: Queryable, run: RunRecord): Promise<RunRecord> {
  const { stored, doc } = checked(run);
  await db.query(
    `UPDATE runs SET type = $3, status = $4, queue_state = $5, internal = $6, attempt = $7, lease_owner = $8,
       lease_until = $9, created_at = $10, updated_at = $11, doc = $12::jsonb
     WHERE run_id = $1 AND seq = $2`,
    columns(stored, doc),
  );
  return stored;
}
