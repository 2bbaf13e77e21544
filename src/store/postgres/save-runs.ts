import type { RunRecord } from '../../domain/run-record.js';
import { joinRecords, splitRecords } from './record-text.js';
import { checked, columns, type StampedRun } from './save-run.js';
import type { Queryable } from './transaction.js';

/**
 * Multi-row forms of insertRun and updateRun: one statement (one round trip, one plan) for every
 * run of a batch, each run's columns passed as one array per column and unnested in SQL.
 * Named statements: the server parses and plans each once per connection.
 */

const COLUMN_COUNT = 11;
const DOC_COLUMN = 9;

/** One array per column (type ... doc, then last_tx), each run's values at the same index; the docs as one joined text. */
function columnArrays(runs: Array<{ stored: RunRecord; doc: string; lastTx: number | null }>): unknown[] {
  const arrays: unknown[][] = Array.from({ length: COLUMN_COUNT }, () => []);
  for (const { stored, doc, lastTx } of runs) {
    const values = [...columns(stored, doc), lastTx];
    for (let i = 0; i < COLUMN_COUNT; i++) arrays[i]!.push(values[i]);
  }
  return arrays.map((values, i) => (i === DOC_COLUMN ? joinRecords(values as string[]) : values));
}

const UNNESTED_COLUMNS = 'type, status, queue_state, internal, attempt, lease_owner, lease_until, created_at, updated_at, doc, last_tx';
const COLUMN_TYPES = ['text', 'text', 'text', 'boolean', 'int', 'text', 'timestamptz', 'text', 'text', 'text', 'bigint'];

/** The typed parameters of the column arrays, numbered from `first` (the docs split from their one text). */
function unnestParams(first: number): string {
  return COLUMN_TYPES.map((type, i) => (i === DOC_COLUMN ? splitRecords(`$${first + i}`) : `$${first + i}::${type}[]`)).join(', ');
}

/**
 * Inserts new runs, numbered from `run_seq` in batch order. A run whose id another transaction
 * inserted first is left out (`ON CONFLICT DO NOTHING`): the map holds null for it.
 */
export async function insertRuns(db: Queryable, runs: StampedRun[]): Promise<Map<string, RunRecord | null>> {
  const prepared = runs.map(({ run, lastTx }) => ({ ...checked({ ...run, seq: 1 }), lastTx }));
  const result = await db.query<{ run_id: string; seq: string }>({
    name: 'runs-insert-many',
    // OFFSET 0 keeps the numbered subquery as it is: each row draws nextval once, used twice.
    text: `INSERT INTO runs (run_id, seq, type, status, queue_state, internal, attempt, lease_owner, lease_until, created_at, updated_at, doc, last_tx)
       SELECT v.run_id, v.seq, v.type, v.status, v.queue_state, v.internal, v.attempt, v.lease_owner, v.lease_until, v.created_at, v.updated_at,
         jsonb_set(v.doc::jsonb, '{seq}', to_jsonb(v.seq)), COALESCE(v.last_tx, 0)
       FROM (
         SELECT u.*, nextval('run_seq') AS seq
         FROM unnest($1::text[], ${unnestParams(2)}) WITH ORDINALITY AS u(run_id, ${UNNESTED_COLUMNS}, ord)
         ORDER BY u.ord OFFSET 0
       ) AS v
       ON CONFLICT (run_id) DO NOTHING
       RETURNING run_id, seq`,
    values: [prepared.map((p) => p.stored.runId), ...columnArrays(prepared)],
  });
  const byId = new Map(result.rows.map((row) => [row.run_id, row]));
  const out = new Map<string, RunRecord | null>();
  for (const { stored } of prepared) {
    const row = byId.get(stored.runId);
    out.set(stored.runId, row === undefined ? null : { ...stored, seq: Number(row.seq) });
  }
  return out;
}

/** A batch of runs to replace, checked and laid out as the update's parameters. */
export interface RunsUpdate {
  stored: RunRecord[];
  values: unknown[];
}

/** The runs of an update checked (refused when a restart could not read them back) and laid out as its 13 parameters. */
export function runsUpdate(runs: StampedRun[]): RunsUpdate {
  const prepared = runs.map(({ run, lastTx }) => ({ ...checked(run), lastTx }));
  return {
    stored: prepared.map(({ stored }) => stored),
    values: [prepared.map((p) => p.stored.runId), prepared.map((p) => p.stored.seq), ...columnArrays(prepared)],
  };
}

/** The multi-row UPDATE of runsUpdate's parameters, numbered from `$first` (a statement of its own, or part of a larger one). */
export function runsUpdateText(first: number): string {
  return `UPDATE runs AS r SET type = v.type, status = v.status, queue_state = v.queue_state, internal = v.internal, attempt = v.attempt,
         lease_owner = v.lease_owner, lease_until = v.lease_until, created_at = v.created_at, updated_at = v.updated_at,
         doc = v.doc::jsonb, last_tx = COALESCE(v.last_tx, r.last_tx)
       FROM unnest($${first}::text[], $${first + 1}::bigint[], ${unnestParams(first + 2)}) AS v(run_id, seq, ${UNNESTED_COLUMNS})
       WHERE r.run_id = v.run_id AND r.seq = v.seq`;
}

/** Replaces existing runs (locked by the caller, in the transaction that stamped them), matched by id and seq; `seq` is never changed. */
export async function updateRuns(db: Queryable, runs: StampedRun[]): Promise<RunRecord[]> {
  const update = runsUpdate(runs);
  await db.query({ name: 'runs-update-many', text: runsUpdateText(1), values: update.values });
  return update.stored;
}
