import { VERDICT_FIELDS } from '../run-field-filters.js';
import type pg from 'pg';
import type { RunRecord } from '../../domain/run-record.js';
import { addToRunCounts, emptyRunCounts, normalizeRunQuery, RUN_COLUMN_FILTERS, settlementSql, type NormalizedRunQuery } from '../run-rules.js';
import type { ApprovalSettlement } from '../../domain/approval-refusal.js';
import type { CancelRequest, RunCounts, RunQuery } from '../types.js';
import { runFromRow } from './save-run.js';

export async function getRun(pool: pg.Pool, runId: string): Promise<RunRecord | null> {
  const { rows } = await pool.query<{ doc: RunRecord }>('SELECT doc FROM runs WHERE run_id = $1', [runId]);
  return rows[0] ? runFromRow(rows[0]) : null;
}

/**
 * Running runs among `runIds` with a cancel requested: one statement, the columns and the cancel
 * flag alone. The rows are found by their keys only, in a fenced subquery that carries the flag
 * rather than the 2.4 KB record, and the status is checked on them: the prepared statement's
 * generic plan otherwise combined the key lookup with `runs_status` for 'running', whose entries
 * include one per run that ever ran until a vacuum removes them (30,000 entries walked, 25-30
 * ms, for eight asked runs).
 */
export async function cancelRequests(pool: pg.Pool, runIds: readonly string[]): Promise<CancelRequest[]> {
  if (runIds.length === 0) return [];
  const { rows } = await pool.query<{ run_id: string; attempt: number; lease_owner: string | null }>({
    name: 'cancel-requests',
    text: `WITH asked AS MATERIALIZED (
             SELECT run_id, attempt, lease_owner, status, jsonb_typeof(doc->'cancellation') = 'object' AS cancel_requested
             FROM runs WHERE run_id = ANY($1::text[]))
           SELECT run_id, attempt, lease_owner FROM asked WHERE status = 'running' AND cancel_requested`,
    values: [runIds],
  });
  return rows.map((row) => ({ runId: row.run_id, attempt: row.attempt, ownerId: row.lease_owner }));
}

export async function listRuns(pool: pg.Pool, query: RunQuery): Promise<{ items: RunRecord[]; total: number }> {
  const q = normalizeRunQuery(query);
  const { clauses, params } = runFilter(q);
  const total = await pool.query<{ n: string }>(`SELECT COUNT(*) AS n FROM runs ${where(clauses)}`, params);
  const pageClauses = [...clauses];
  const pageParams = [...params];
  if (q.afterSeq !== undefined) {
    pageParams.push(q.afterSeq);
    pageClauses.push(`seq ${q.order === 'newest' ? '<' : '>'} $${pageParams.length}`);
  }
  pageParams.push(q.limit, q.offset);
  const { rows } = await pool.query<{ doc: RunRecord }>(
    `SELECT doc FROM runs ${where(pageClauses)} ORDER BY seq ${q.order === 'newest' ? 'DESC' : 'ASC'}
     LIMIT $${pageParams.length - 1} OFFSET $${pageParams.length}`,
    pageParams,
  );
  return { items: rows.map(runFromRow), total: Number(total.rows[0]!.n) };
}

/** A run row's approval settlement: its JSON document's fields read as text. */
const SETTLEMENT = settlementSql((path) => `doc #>> '{${path.join(',')}}'`);

export async function countRuns(pool: pg.Pool, includeInternal: boolean): Promise<RunCounts> {
  const { rows } = await pool.query<Pick<RunRecord, 'type' | 'status' | 'queueState'> & { settlement: ApprovalSettlement | null; n: string }>(
    `SELECT type, status, queue_state AS "queueState", ${SETTLEMENT} AS settlement, COUNT(*) AS n FROM runs
     ${includeInternal ? '' : 'WHERE NOT internal'}
     GROUP BY type, status, queue_state, settlement`,
  );
  const counts = emptyRunCounts();
  for (const row of rows) addToRunCounts(counts, row, Number(row.n), row.settlement);
  return counts;
}

function where(clauses: string[]): string {
  return clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`;
}

function runFilter(q: NormalizedRunQuery): { clauses: string[]; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (!q.includeInternal) clauses.push('NOT internal');
  for (const { field, column, operator } of RUN_COLUMN_FILTERS) {
    const value = q[field];
    if (value === undefined) continue;
    params.push(value);
    // A bound compares created_at, TEXT in the stored toISOString spelling as the bounds are: in
    // byte order (the C collation, whatever the database's default), which is time order.
    clauses.push(`${operator === '=' ? column : `${column} COLLATE "C"`} ${operator} $${params.length}`);
  }
  if (q.tags.length > 0) {
    // Containment of every wanted tag, answered by the partial GIN index runs_tags (migration 11),
    // whose predicate is repeated so the planner may use it.
    params.push(JSON.stringify(q.tags));
    clauses.push(`doc ? 'tags' AND doc -> 'tags' @> $${params.length}::jsonb`);
  }
  if (q.idPrefix !== undefined) {
    // starts_with, not LIKE: `%` and `_` may be part of a run id.
    params.push(q.idPrefix);
    clauses.push(`starts_with(run_id, $${params.length})`);
  }
  for (const match of q.payload) {
    // The field's JSON value against each value it may equal: jsonb compares numbers as numbers.
    const candidates = [JSON.stringify(match.text)];
    if (match.number !== null) candidates.push(JSON.stringify(match.number));
    if (match.boolean !== null) candidates.push(match.boolean);
    params.push(['payload', ...match.path], candidates);
    clauses.push(`doc #> $${params.length - 1}::text[] = ANY($${params.length}::jsonb[])`);
  }
  if (q.verdict !== undefined) {
    params.push(JSON.stringify(q.verdict));
    const verdict = `$${params.length}::jsonb`;
    clauses.push(`(${VERDICT_FIELDS.map((field) => `doc -> 'result' -> '${field}' = ${verdict}`).join(' OR ')})`);
  }
  return { clauses, params };
}
