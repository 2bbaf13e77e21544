import type pg from 'pg';
import { boundState } from '../../domain/orchestrator-state.js';
import { STATE_BOUNDS, emptyOrchestratorState, type OrchestratorState, type StateWithoutHistory, type TaskRecord } from '../../domain/orchestrator-state.js';
import { pickState, stateProblem } from '../record-checks.js';
import { stateCorrupt } from '../types.js';
import { joinRecords, splitRecords } from './record-text.js';
import { withTransaction, type Queryable } from './transaction.js';

/**
 * The OrchestratorState document of one state key: the row of `state_documents` (the
 * document without its task history, plus tasksProcessed in a column of its own), the key's
 * rows of `task_history` (the newest STATE_BOUNDS.taskHistory count) and of
 * `task_count_deltas` (tasksProcessed is the column plus these).
 *
 * A writer of the document takes its row `FOR UPDATE`. A finish that only records tasks takes
 * it `FOR KEY SHARE`, which finishes of every instance hold side by side: it inserts history
 * rows and a count delta, never rewrites the row, so finishes no longer queue one commit at a
 * time on it; a document writer still waits for them, and they for it, so a rewrite of the
 * history never loses a row recorded meanwhile.
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

/** The key's count deltas not yet folded into its column ($1 the state key). */
const DELTAS_OF_KEY = 'COALESCE((SELECT SUM(d.n) FROM task_count_deltas AS d WHERE d.state_key = $1), 0)';

/**
 * The key's newest $2 history rows, oldest first ($1 the state key): a trim that skipped rows
 * another finish was deleting can leave a few older ones behind until the next trim.
 */
const HISTORY_OF_KEY = `COALESCE((SELECT jsonb_agg(h.record ORDER BY h.id)
  FROM (SELECT id, record FROM task_history WHERE state_key = $1 ORDER BY id DESC LIMIT $2) AS h), '[]'::jsonb)`;

/**
 * The document and its task history in one statement: one snapshot (a statement's own, under
 * READ COMMITTED), so a concurrent recordTask is seen whole or not at all, and one round trip
 * where a transaction with two selects took five. Every attempt of an in-process handler reads
 * the state first, so this is on the per-run path.
 */
async function readState(db: Queryable, stateKey: string): Promise<OrchestratorState> {
  const { rows } = await db.query<{ tasks_processed: string; doc: Record<string, unknown>; history: TaskRecord[] }>({
    name: 'state-read',
    text: `SELECT s.tasks_processed + ${DELTAS_OF_KEY} AS tasks_processed, s.doc, ${HISTORY_OF_KEY} AS history
       FROM state_documents AS s WHERE s.state_key = $1`,
    values: [stateKey, STATE_BOUNDS.taskHistory],
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
  const { rows: rest } = await db.query<{ deltas: string; history: TaskRecord[] }>(
    `SELECT ${DELTAS_OF_KEY} AS deltas, ${HISTORY_OF_KEY} AS history`,
    [stateKey, STATE_BOUNDS.taskHistory],
  );
  const tasksProcessed = Number(row.tasks_processed) + Number(rest[0]!.deltas);
  return pickState({ ...row.doc, tasksProcessed, taskHistory: rest[0]!.history });
}

export function getState(pool: pg.Pool, stateKey: string): Promise<OrchestratorState> {
  return readState(pool, stateKey);
}

/** The document and its count in one statement, the history left unread. */
export async function getStateWithoutHistory(pool: pg.Pool, stateKey: string): Promise<StateWithoutHistory> {
  const { rows } = await pool.query<{ tasks_processed: string; doc: Record<string, unknown> }>({
    name: 'state-read-without-history',
    text: `SELECT s.tasks_processed + ${DELTAS_OF_KEY} AS tasks_processed, s.doc FROM state_documents AS s WHERE s.state_key = $1`,
    values: [stateKey],
  });
  const row = rows[0];
  const { taskHistory: _history, ...rest } = row ? pickState({ ...row.doc, tasksProcessed: Number(row.tasks_processed), taskHistory: [] }) : emptyOrchestratorState();
  return rest;
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
  // The change the mutation made to the count, not the count: the deltas stay where they are.
  await client.query('UPDATE state_documents SET tasks_processed = tasks_processed + $2, doc = $3::jsonb WHERE state_key = $1', [
    stateKey,
    after.tasksProcessed - before.tasksProcessed,
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

/**
 * Takes the document row `FOR UPDATE` ahead of a batch that records tasks and also rewrites the
 * document: taken after its own `FOR KEY SHARE`, the upgrade could wait on another such batch
 * waiting on it (a deadlock); taken first, batches like it queue instead.
 */
export async function lockStateDocument(client: Queryable, stateKey: string): Promise<void> {
  await client.query({ name: 'state-lock', text: 'SELECT 1 FROM state_documents WHERE state_key = $1 FOR UPDATE', values: [stateKey] });
}

/** tasksProcessed + 1 and one history row, the oldest beyond the bound deleted; the document itself is not rewritten. */
export function recordTask(pool: pg.Pool, stateKey: string, record: TaskRecord): Promise<void> {
  return withTransaction(pool, (client) => recordTaskIn(client, stateKey, record));
}

/** recordTask inside a transaction the caller holds. */
export function recordTaskIn(client: Queryable, stateKey: string, record: TaskRecord): Promise<void> {
  return recordTasksIn(client, stateKey, [record]);
}

/** SQL pieces of taskRecordCtesOf. */
export interface TaskRecordSql {
  /** The state key (text). */
  key: string;
  /** A FROM item of the records to add, as `u(record, ..., ord)`, with any WHERE that picks them. */
  rows: string;
  /** How many records are added. */
  n: string;
  /** How many of the rows before them the history keeps. */
  keepBefore: string;
}

/**
 * The CTEs that record finished tasks for a key: the count delta, added by a statement that
 * takes the document row `FOR KEY SHARE` (held beside other finishes, excluding a document
 * writer); the history rows in the order given; and the trim. The trim shares the statement's
 * snapshot, in which the rows just added are not there yet, so it keeps the newest `bound - n`
 * of the rows before them. Rows another finish is already deleting are skipped, not waited for
 * (as appended's cut). Nothing is counted or trimmed when no record is added.
 */
export function taskRecordCtesOf({ key, rows, n, keepBefore }: TaskRecordSql): string {
  return `counted AS (
       INSERT INTO task_count_deltas (state_key, n)
       SELECT state_key, ${n} FROM state_documents WHERE state_key = ${key} AND ${n} > 0 FOR KEY SHARE RETURNING 1
     ), recorded AS (
       INSERT INTO task_history (state_key, record)
       SELECT ${key}, u.record::jsonb FROM ${rows} ORDER BY u.ord RETURNING 1
     ), trimmed AS (
       DELETE FROM task_history WHERE id IN (
         SELECT id FROM task_history WHERE state_key = ${key} AND ${n} > 0 AND id < COALESCE((
           SELECT MIN(id) FROM (SELECT id FROM task_history WHERE state_key = ${key} ORDER BY id DESC LIMIT ${keepBefore}) AS kept
         ), 9223372036854775807) FOR UPDATE SKIP LOCKED) RETURNING 1
     )`;
}

/** taskRecordCtesOf for every record of the parameters numbered from `$first` (taskRecordValues). */
export function taskRecordCtes(first: number): string {
  const param = (offset: number) => `$${first + offset}`;
  return taskRecordCtesOf({
    key: `${param(0)}::text`,
    n: `${param(1)}::int`,
    rows: `unnest(${splitRecords(param(2))}) WITH ORDINALITY AS u(record, ord)`,
    keepBefore: `${param(3)}::int`,
  });
}

/** The four parameters of taskRecordCtes. */
export function taskRecordValues(stateKey: string, records: TaskRecord[]): unknown[] {
  return [stateKey, records.length, joinRecords(records.map((record) => JSON.stringify(record))), Math.max(0, STATE_BOUNDS.taskHistory - records.length)];
}

/** recordTaskIn for several finished tasks, in the order given: one statement whatever their number. */
export async function recordTasksIn(client: Queryable, stateKey: string, records: TaskRecord[]): Promise<void> {
  if (records.length === 0) return;
  await client.query({ name: 'task-records', text: `WITH ${taskRecordCtes(1)} SELECT 1`, values: taskRecordValues(stateKey, records) });
}

/**
 * Moves the key's count deltas into its column, in one statement: the deltas it deletes are the
 * ones its snapshot sees, and exactly their sum is added, so a reader sees the same count before
 * and after. It takes the row `FOR NO KEY UPDATE`, which finishes' `FOR KEY SHARE` does not
 * exclude: beside finishes in flight it folds what they committed, and theirs wait for the next
 * fold. (With `FOR UPDATE` it was skipped whenever a finish held the row, which under load was
 * nearly always: with three instances the deltas reached a thousand rows between folds, and every
 * state read sums them.) Skipped (nothing done) while a document writer or another fold holds
 * the row. Answers how many deltas it folded.
 */
export async function foldTaskCounts(db: Queryable, stateKey: string): Promise<number> {
  const { rows } = await db.query<{ folded: number }>({
    name: 'task-count-fold',
    text: `WITH s AS (SELECT state_key FROM state_documents WHERE state_key = $1 FOR NO KEY UPDATE SKIP LOCKED),
       d AS (DELETE FROM task_count_deltas WHERE state_key IN (SELECT state_key FROM s) RETURNING n),
       u AS (UPDATE state_documents SET tasks_processed = tasks_processed + (SELECT COALESCE(SUM(n), 0) FROM d)
             WHERE state_key IN (SELECT state_key FROM s) AND EXISTS (SELECT 1 FROM d) RETURNING 1)
     SELECT (SELECT COUNT(*) FROM d)::int AS folded`,
    values: [stateKey],
  });
  return rows[0]?.folded ?? 0;
}
