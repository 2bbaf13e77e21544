import type pg from 'pg';
import { boundState } from '../../domain/orchestrator-state.js';
import { STATE_BOUNDS, emptyOrchestratorState, type OrchestratorState, type TaskRecord } from '../../domain/orchestrator-state.js';
import { pickState, stateProblem } from '../record-checks.js';
import { stateCorrupt } from '../types.js';
import { withTransaction, type Queryable } from './transaction.js';

/**
 * The OrchestratorState document of one state key: the row of `state_documents` (the
 * document without its task history, plus tasksProcessed in a column of its own) and the
 * key's rows of `task_history`. The row lock on the document serializes every writer of the
 * key across instances.
 */

type StoredDoc = Omit<OrchestratorState, 'tasksProcessed' | 'taskHistory'>;

function storedDoc(state: OrchestratorState): StoredDoc {
  const { tasksProcessed: _processed, taskHistory: _history, ...rest } = state;
  return rest;
}

/** Creates the key's document when absent (at open, by whichever instance comes first). */
export async function ensureStateDocument(db: Queryable, stateKey: string): Promise<void> {
  await db.query('INSERT INTO state_documents (state_key, doc) VALUES ($1, $2::jsonb) ON CONFLICT (state_key) DO NOTHING', [
    stateKey,
    JSON.stringify(storedDoc(emptyOrchestratorState())),
  ]);
}

/**
 * The document and its task history in one statement: one snapshot (a statement's own, under
 * READ COMMITTED), so a concurrent recordTask is seen whole or not at all, and one round trip
 * where a transaction with two selects took five. Every attempt of an in-process handler reads
 * the state first, so this is on the per-run path.
 */
async function readState(db: Queryable, stateKey: string): Promise<OrchestratorState> {
  const { rows } = await db.query<{ tasks_processed: string; doc: Record<string, unknown>; history: TaskRecord[] }>({
    name: 'state-read',
    text: `SELECT s.tasks_processed, s.doc,
         COALESCE((SELECT jsonb_agg(h.record ORDER BY h.id) FROM task_history AS h WHERE h.state_key = $1), '[]'::jsonb) AS history
       FROM state_documents AS s WHERE s.state_key = $1`,
    values: [stateKey],
  });
  const row = rows[0];
  if (!row) return emptyOrchestratorState();
  return pickState({ ...row.doc, tasksProcessed: Number(row.tasks_processed), taskHistory: row.history });
}

/**
 * The document locked for a read-modify-write, then its history read by a statement of its own:
 * that statement's snapshot is taken after the lock was granted, so it sees every history row
 * the previous writer committed (a subquery of the locking statement could miss them).
 */
async function readStateLocked(db: Queryable, stateKey: string): Promise<OrchestratorState> {
  const { rows } = await db.query<{ tasks_processed: string; doc: Record<string, unknown> }>(
    'SELECT tasks_processed, doc FROM state_documents WHERE state_key = $1 FOR UPDATE',
    [stateKey],
  );
  const row = rows[0];
  if (!row) return emptyOrchestratorState();
  const history = await db.query<{ record: TaskRecord }>('SELECT record FROM task_history WHERE state_key = $1 ORDER BY id', [stateKey]);
  return pickState({ ...row.doc, tasksProcessed: Number(row.tasks_processed), taskHistory: history.rows.map((r) => r.record) });
}

export function getState(pool: pg.Pool, stateKey: string): Promise<OrchestratorState> {
  return readState(pool, stateKey);
}

export function mutateState(
  pool: pg.Pool,
  stateKey: string,
  mutate: (current: OrchestratorState) => OrchestratorState | null,
): Promise<OrchestratorState> {
  return withTransaction(pool, (client) => mutateStateIn(client, stateKey, mutate));
}

/** mutateState inside a transaction the caller holds (an attempt's final write shares it with the run). */
export async function mutateStateIn(
  client: Queryable,
  stateKey: string,
  mutate: (current: OrchestratorState) => OrchestratorState | null,
): Promise<OrchestratorState> {
  const before = await readStateLocked(client, stateKey);
  const next = mutate(structuredClone(before));
  if (next === null) return before;
  const after = JSON.parse(JSON.stringify(boundState(next))) as OrchestratorState;
  const problem = stateProblem(after as unknown as Record<string, unknown>, 'state.', true);
  if (problem !== null) throw stateCorrupt(`refusing to store the orchestrator state: ${problem}`);
  await client.query('UPDATE state_documents SET tasks_processed = $2, doc = $3::jsonb WHERE state_key = $1', [
    stateKey,
    after.tasksProcessed,
    JSON.stringify(storedDoc(after)),
  ]);
  if (JSON.stringify(before.taskHistory) !== JSON.stringify(after.taskHistory)) {
    await client.query('DELETE FROM task_history WHERE state_key = $1', [stateKey]);
    for (const record of after.taskHistory) {
      await client.query('INSERT INTO task_history (state_key, record) VALUES ($1, $2::jsonb)', [stateKey, JSON.stringify(record)]);
    }
  }
  return after;
}

/** tasksProcessed + 1 and one history row, the oldest beyond the bound deleted; the document itself is not rewritten. */
export function recordTask(pool: pg.Pool, stateKey: string, record: TaskRecord): Promise<void> {
  return withTransaction(pool, (client) => recordTaskIn(client, stateKey, record));
}

/** recordTask inside a transaction the caller holds. */
export async function recordTaskIn(client: Queryable, stateKey: string, record: TaskRecord): Promise<void> {
  await client.query('UPDATE state_documents SET tasks_processed = tasks_processed + 1 WHERE state_key = $1', [stateKey]);
  await client.query('INSERT INTO task_history (state_key, record) VALUES ($1, $2::jsonb)', [stateKey, JSON.stringify(record)]);
  await client.query(
    `DELETE FROM task_history WHERE state_key = $1 AND id < (
       SELECT MIN(id) FROM (SELECT id FROM task_history WHERE state_key = $1 ORDER BY id DESC LIMIT $2) AS kept
     )`,
    [stateKey, STATE_BOUNDS.taskHistory],
  );
}

/** recordTaskIn for several finished tasks, in the order given: three statements whatever their number. */
export async function recordTasksIn(client: Queryable, stateKey: string, records: TaskRecord[]): Promise<void> {
  if (records.length === 0) return;
  await client.query({
    name: 'state-tasks-processed-add',
    text: 'UPDATE state_documents SET tasks_processed = tasks_processed + $2 WHERE state_key = $1',
    values: [stateKey, records.length],
  });
  await client.query({
    name: 'task-history-insert-many',
    text: 'INSERT INTO task_history (state_key, record) SELECT $1, u.record::jsonb FROM unnest($2::text[]) WITH ORDINALITY AS u(record, ord) ORDER BY u.ord',
    values: [stateKey, records.map((record) => JSON.stringify(record))],
  });
  await client.query({
    name: 'task-history-trim',
    text: `DELETE FROM task_history WHERE state_key = $1 AND id < (
       SELECT MIN(id) FROM (SELECT id FROM task_history WHERE state_key = $1 ORDER BY id DESC LIMIT $2) AS kept
     )`,
    values: [stateKey, STATE_BOUNDS.taskHistory],
  });
}
