import type { RunRecord } from '../../domain/run-record.js';
import { awaitsStamp, checked, columns, stampedAs } from './save-run.js';
import type { Queryable } from './transaction.js';

/**
 * Multi-row forms of insertRun and updateRun: one statement (one round trip, one plan) for every
 * run of a batch, each run's columns passed as one array per column and unnested in SQL.
 * Named statements: the server parses and plans each once per connection.
 */

const COLUMN_COUNT = 11;

/** One array per column (type ... doc, then the stamp flag), each run's values at the same index. */
function columnArrays(runs: Array<{ stored: RunRecord; doc: string; stamps: boolean }>): unknown[][] {
  const arrays: unknown[][] = Array.from({ length: COLUMN_COUNT }, () => []);
  for (const { stored, doc, stamps } of runs) {
    const values = [...columns(stored, doc), stamps];
    for (let i = 0; i < COLUMN_COUNT; i++) arrays[i]!.push(values[i]);
  }
  return arrays;
}

const UNNESTED_COLUMNS = 'type, status, queue_state, internal, attempt, lease_owner, lease_until, created_at, updated_at, doc, stamps';
const COLUMN_TYPES = ['text', 'text', 'text', 'boolean', 'int', 'text', 'timestamptz', 'text', 'text', 'text', 'boolean'];

/** The typed parameters of the column arrays, numbered from `first`. */
function unnestParams(first: number): string {
  return COLUMN_TYPES.map((type, i) => `$${first + i}::${type}[]`).join(', ');
}

/**
 * Inserts new runs, numbered from `run_seq` in batch order. A run whose id another transaction
 * inserted first is left out (`ON CONFLICT DO NOTHING`): the map holds null for it.
 */
export async function insertRuns(db: Queryable, runs: RunRecord[]): Promise<Map<string, RunRecord | null>> {
  const prepared = runs.map((run) => {
    const { stored, doc } = checked({ ...run, seq: 1 });
    return { stored, doc, stamps: awaitsStamp(stored) };
  });
  const result = await db.query<{ run_id: string; seq: string; last_tx: string }>({
    name: 'runs-insert-many',
    // OFFSET 0 keeps the numbered subquery as it is: each row draws nextval once, used twice.
    text: `INSERT INTO runs (run_id, seq, type, status, queue_state, internal, attempt, lease_owner, lease_until, created_at, updated_at, doc, last_tx)
       SELECT v.run_id, v.seq, v.type, v.status, v.queue_state, v.internal, v.attempt, v.lease_owner, v.lease_until, v.created_at, v.updated_at,
         CASE WHEN v.stamps THEN run_events_stamped(jsonb_set(v.doc::jsonb, '{seq}', to_jsonb(v.seq))) ELSE jsonb_set(v.doc::jsonb, '{seq}', to_jsonb(v.seq)) END,
         CASE WHEN v.stamps THEN pg_current_xact_id()::text::bigint ELSE 0 END
       FROM (
         SELECT u.*, nextval('run_seq') AS seq
         FROM unnest($1::text[], ${unnestParams(2)}) WITH ORDINALITY AS u(run_id, ${UNNESTED_COLUMNS}, ord)
         ORDER BY u.ord OFFSET 0
       ) AS v
       ON CONFLICT (run_id) DO NOTHING
       RETURNING run_id, seq, last_tx`,
    values: [prepared.map((p) => p.stored.runId), ...columnArrays(prepared)],
  });
  const byId = new Map(result.rows.map((row) => [row.run_id, row]));
  const out = new Map<string, RunRecord | null>();
  for (const { stored, stamps } of prepared) {
    const row = byId.get(stored.runId);
    out.set(stored.runId, row === undefined ? null : { ...(stamps ? stampedAs(stored, row.last_tx) : stored), seq: Number(row.seq) });
  }
  return out;
}

/** Replaces existing runs (locked by the caller), matched by id and seq; `seq` is never changed. */
export async function updateRuns(db: Queryable, runs: RunRecord[]): Promise<RunRecord[]> {
  const prepared = runs.map((run) => {
    const { stored, doc } = checked(run);
    return { stored, doc, stamps: awaitsStamp(stored) };
  });
  const result = await db.query<{ run_id: string; last_tx: string }>({
    name: 'runs-update-many',
    text: `UPDATE runs AS r SET type = v.type, status = v.status, queue_state = v.queue_state, internal = v.internal, attempt = v.attempt,
         lease_owner = v.lease_owner, lease_until = v.lease_until, created_at = v.created_at, updated_at = v.updated_at,
         doc = CASE WHEN v.stamps THEN run_events_stamped(v.doc::jsonb) ELSE v.doc::jsonb END,
         last_tx = CASE WHEN v.stamps THEN pg_current_xact_id()::text::bigint ELSE r.last_tx END
       FROM unnest($1::text[], $2::bigint[], ${unnestParams(3)}) AS v(run_id, seq, ${UNNESTED_COLUMNS})
       WHERE r.run_id = v.run_id AND r.seq = v.seq
       RETURNING r.run_id, r.last_tx`,
    values: [prepared.map((p) => p.stored.runId), prepared.map((p) => p.stored.seq), ...columnArrays(prepared)],
  });
  const byId = new Map(result.rows.map((row) => [row.run_id, row.last_tx]));
  return prepared.map(({ stored, stamps }) => {
    const tx = byId.get(stored.runId);
    return stamps && tx !== undefined ? stampedAs(stored, tx) : stored;
  });
}
