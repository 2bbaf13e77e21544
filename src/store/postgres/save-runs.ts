import type { RunRecord } from '../../domain/run-record.js';
import { joinRecords, splitRecords } from './record-text.js';
import { checked, checkedOver, type StampedRun } from './save-run.js';
import type { Queryable } from './transaction.js';

/**
 * Multi-row forms of insertRun and updateRun: one statement (one round trip, one plan) for every
 * run of a batch. The records travel as one joined text (record-text.ts) with one array of
 * `last_tx` values, and the statement takes each row's columns from its record: the columns are
 * the record's fields (save-run.ts `columns`), and reading them from the parsed `jsonb` in SQL
 * spares the service an array parameter per column, each built and escaped element by element.
 * Named statements: the server parses and plans each once per connection.
 */

/** A batch's records and their `last_tx` values, unnested as `alias(doc jsonb, last_tx bigint[, ord])`. */
function unnestRecords(first: number, alias: string, ordinality = false): string {
  const columns = ordinality ? 'doc, last_tx, ord' : 'doc, last_tx';
  return `unnest(${splitRecords(`$${first}`)}::jsonb[], $${first + 1}::bigint[])${ordinality ? ' WITH ORDINALITY' : ''} AS ${alias}(${columns})`;
}

/** The parameters of unnestRecords: the records as one text, then their `last_tx` values. */
function recordParams(runs: Array<{ doc: string; lastTx: number | null }>): unknown[] {
  return [joinRecords(runs.map((run) => run.doc)), runs.map((run) => run.lastTx)];
}

/** The columns after run_id and seq, as save-run.ts `columns` lays them out, read from the record `doc`. */
export function columnsOf(doc: string): string {
  return [
    `${doc}->>'type'`,
    `${doc}->>'status'`,
    `${doc}->>'queueState'`,
    `(${doc}->>'internal')::boolean`,
    `COALESCE((${doc}->>'attempt')::int, 1)`,
    `${doc}->'claim'->>'ownerId'`,
    `(${doc}->'claim'->>'leaseUntil')::timestamptz`,
    `${doc}->>'createdAt'`,
    `${doc}->>'updatedAt'`,
  ].join(', ');
}

export const RUN_COLUMNS = 'type, status, queue_state, internal, attempt, lease_owner, lease_until, created_at, updated_at';

/**
 * Inserts new runs, numbered from `run_seq` in batch order. A run whose id another transaction
 * inserted first is left out (`ON CONFLICT DO NOTHING`): the map holds null for it.
 */
export async function insertRuns(db: Queryable, runs: StampedRun[]): Promise<Map<string, RunRecord | null>> {
  const prepared = runs.map(({ run, lastTx }) => ({ ...checked({ ...run, seq: 1 }), lastTx }));
  const result = await db.query<{ run_id: string; seq: string }>({
    name: 'runs-insert-many',
    // OFFSET 0 keeps the numbered subquery as it is: each row draws nextval once, used twice.
    text: `INSERT INTO runs (run_id, seq, ${RUN_COLUMNS}, doc, last_tx)
       SELECT v.doc->>'runId', v.seq, ${columnsOf('v.doc')}, jsonb_set(v.doc, '{seq}', to_jsonb(v.seq)), COALESCE(v.last_tx, 0)
       FROM (
         SELECT u.doc, u.last_tx, nextval('run_seq') AS seq FROM ${unnestRecords(1, 'u', true)}
         ORDER BY u.ord OFFSET 0
       ) AS v
       ON CONFLICT (run_id) DO NOTHING
       RETURNING run_id, seq`,
    values: recordParams(prepared),
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

/**
 * The runs of an update checked (refused when a restart could not read them back) and laid out
 * as its two parameters. `befores[i]`, when given, is the deep-frozen record read back that
 * `runs[i]` was made over: the stored copy then shares its unchanged parts (checkedOver).
 */
export function runsUpdate(runs: StampedRun[], befores?: readonly RunRecord[]): RunsUpdate {
  const prepared = runs.map(({ run, lastTx }, i) => ({ ...(befores ? checkedOver(befores[i]!, run) : checked(run)), lastTx }));
  return { stored: prepared.map(({ stored }) => stored), values: recordParams(prepared) };
}

/** The multi-row UPDATE of runsUpdate's parameters, numbered from `$first` (a statement of its own, or part of a larger one). */
export function runsUpdateText(first: number): string {
  return `UPDATE runs AS r SET (${RUN_COLUMNS}, doc, last_tx) = (${columnsOf('v.doc')}, v.doc, COALESCE(v.last_tx, r.last_tx))
       FROM ${unnestRecords(first, 'v')}
       WHERE r.run_id = v.doc->>'runId' AND r.seq = (v.doc->>'seq')::bigint`;
}

/** Replaces existing runs (locked by the caller, in the transaction that stamped them), matched by id and seq; `seq` is never changed. */
export async function updateRuns(db: Queryable, runs: StampedRun[], befores?: readonly RunRecord[]): Promise<RunRecord[]> {
  const update = runsUpdate(runs, befores);
  await db.query({ name: 'runs-update-many', text: runsUpdateText(1), values: update.values });
  return update.stored;
}
