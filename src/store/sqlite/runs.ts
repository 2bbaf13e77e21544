import type Database from 'better-sqlite3';
import type { RunRecord, RunStatus } from '../../tasks/types.js';
import { runProblem } from '../record-checks.js';
import {
  PRUNABLE_STATUSES,
  addToRunCounts,
  blockedTypes,
  emptyRunCounts,
  normalizeRunQuery,
  storedRun,
  type NormalizedRunQuery,
} from '../run-rules.js';
import type { ClaimOptions, MutateResult, RunCounts, RunMutator, RunQuery } from '../types.js';
import { deepFreeze } from '../deep-freeze.js';
import { statement } from './statements.js';

/**
 * Run operations on the `runs` table. Functions that write are called inside the batch
 * transaction (see TransactionBatcher), which is what makes each read-modify-write atomic.
 */

interface DocRow {
  doc: string;
}

export function getRun(db: Database.Database, runId: string): RunRecord | null {
  const row = statement(db, 'SELECT doc FROM runs WHERE run_id = ?').get(runId) as DocRow | undefined;
  return row === undefined ? null : (JSON.parse(row.doc) as RunRecord);
}

export function mutateRun(db: Database.Database, runId: string, mutate: RunMutator): MutateResult {
  // Parsed for this call and held by nothing else, so the mutator gets it deep-frozen instead of
  // a copy (a structured clone per transition), as the file store hands out its stored record.
  const before = deepFreeze(getRun(db, runId));
  const next = mutate(before);
  if (next === null) return { before, after: before, changed: false };
  const after = saveRun(db, storedRun(runId, before, next, () => nextRunSeq(db)));
  return { before, after, changed: true };
}

/**
 * The oldest ready run not blocked by the caller's exclusions or a type limit. Running counts
 * are read in the same transaction as the pick and the update, so two claims (in this batch or
 * from another connection) can never both see a free slot or the same run.
 */
export function claimNextRun(
  db: Database.Database,
  options: ClaimOptions,
  mutate: (run: RunRecord) => RunRecord,
): RunRecord | null {
  const blocked = blockedTypes(options, runningByType(db, Object.keys(options.typeLimits)));
  const row = statement(
    db,
    `SELECT doc FROM runs
     WHERE queue_state = 'ready' AND type NOT IN (SELECT value FROM json_each(?))
     ORDER BY seq LIMIT 1`,
  ).get(JSON.stringify([...blocked])) as DocRow | undefined;
  if (row === undefined) return null;
  // One parse, frozen for the mutator (see mutateRun), where there were two.
  const current = deepFreeze(JSON.parse(row.doc) as RunRecord);
  return saveRun(db, storedRun(current.runId, current, mutate(current), () => nextRunSeq(db)));
}

export function listRuns(db: Database.Database, query: RunQuery): { items: RunRecord[]; total: number } {
  const q = normalizeRunQuery(query);
  const { where, params } = runFilter(q);
  const order = q.order === 'newest' ? 'DESC' : 'ASC';
  const cursorClause = q.afterSeq === undefined ? '' : `${where === '' ? 'WHERE' : ' AND'} seq ${q.order === 'newest' ? '<' : '>'} ?`;
  const cursorParams = q.afterSeq === undefined ? [] : [q.afterSeq];
  const rows = statement(db, `SELECT doc FROM runs ${where}${cursorClause} ORDER BY seq ${order} LIMIT ? OFFSET ?`).all(
    ...params,
    ...cursorParams,
    q.limit,
    q.offset,
  ) as DocRow[];
  const { n } = statement(db, `SELECT COUNT(*) AS n FROM runs ${where}`).get(...params) as { n: number };
  return { items: rows.map((row) => JSON.parse(row.doc) as RunRecord), total: n };
}

export function countRuns(db: Database.Database, includeInternal: boolean): RunCounts {
  const rows = statement(
    db,
    `SELECT type, status, queue_state AS queueState, COUNT(*) AS n FROM runs
     ${includeInternal ? '' : 'WHERE internal = 0'}
     GROUP BY type, status, queue_state`,
  ).all() as Array<Pick<RunRecord, 'type' | 'status' | 'queueState'> & { n: number }>;
  const counts = emptyRunCounts();
  for (const row of rows) addToRunCounts(counts, row, row.n);
  return counts;
}

/** Deletes the oldest finished runs so that at most `keep` runs remain (unfinished ones always stay). */
export function pruneRuns(db: Database.Database, keep: number): number {
  const { n } = statement(db, 'SELECT COUNT(*) AS n FROM runs').get() as { n: number };
  const excess = n - keep;
  if (excess <= 0) return 0;
  return statement(
    db,
    `DELETE FROM runs WHERE run_id IN (
       SELECT run_id FROM runs WHERE status IN (SELECT value FROM json_each(?)) ORDER BY seq LIMIT ?
     )`,
  ).run(JSON.stringify(PRUNABLE_STATUSES), excess).changes;
}

export function countAllRuns(db: Database.Database): number {
  return (statement(db, 'SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n;
}

/** Stores a run (insert or full replace; `seq` never changes on update) and returns it as stored. */
function saveRun(db: Database.Database, run: RunRecord): RunRecord {
  const doc = JSON.stringify(run);
  const stored = JSON.parse(doc) as RunRecord;
  const problem = runProblem(stored, 'run');
  if (problem !== null) throw new Error(`refusing to store run ${run.runId}: ${problem}`);
  statement(
    db,
    `INSERT INTO runs (run_id, seq, type, status, queue_state, internal, created_at, updated_at, doc)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (run_id) DO UPDATE SET
       type = excluded.type, status = excluded.status, queue_state = excluded.queue_state,
       internal = excluded.internal, created_at = excluded.created_at, updated_at = excluded.updated_at,
       doc = excluded.doc`,
  ).run(
    stored.runId,
    stored.seq,
    stored.type,
    stored.status,
    stored.queueState,
    stored.internal ? 1 : 0,
    stored.createdAt ?? null,
    stored.updatedAt ?? null,
    doc,
  );
  return stored;
}

/** Admission numbers come from a counter, not MAX(seq), so a pruned newest run's number is never reused. */
function nextRunSeq(db: Database.Database): number {
  const row = statement(db, "UPDATE counters SET value = value + 1 WHERE name = 'run_seq' RETURNING value").get() as {
    value: number;
  };
  return row.value;
}

/** Running counts of the given types only: types without a limit need no count, however many run. */
function runningByType(db: Database.Database, types: string[]): Map<string, number> {
  if (types.length === 0) return new Map();
  const rows = statement(
    db,
    `SELECT type, COUNT(*) AS n FROM runs
     WHERE status = 'running' AND type IN (SELECT value FROM json_each(?))
     GROUP BY type`,
  ).all(JSON.stringify(types)) as Array<{ type: string; n: number }>;
  return new Map(rows.map((row) => [row.type, row.n]));
}

function runFilter(q: NormalizedRunQuery): { where: string; params: Array<string | RunStatus> } {
  const clauses: string[] = [];
  const params: Array<string | RunStatus> = [];
  if (!q.includeInternal) clauses.push('internal = 0');
  if (q.type !== undefined) {
    clauses.push('type = ?');
    params.push(q.type);
  }
  if (q.status !== undefined) {
    clauses.push('status = ?');
    params.push(q.status);
  }
  if (q.queueState !== undefined) {
    clauses.push('queue_state = ?');
    params.push(q.queueState);
  }
  return { where: clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`, params };
}
