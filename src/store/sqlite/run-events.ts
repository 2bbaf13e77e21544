import type Database from 'better-sqlite3';
import type { RunEvent, RunStatus } from '../../domain/run-record.js';
import type { EventCursor } from '../../domain/run-event-cursor.js';
import type { RunEventFilter, StoredRunEvent } from '../types.js';
import { statement } from './statements.js';

interface EventRow {
  runId: string;
  runSeq: number;
  type: string;
  internal: number;
  taskId: string;
  status: RunStatus;
  event: string;
  tx: number;
  eventSeq: number;
}

/**
 * The change feed on SQLite: the events of the runs written at or after the cursor's stamp (the
 * `last_tx` index; one run by its key for a per-run read), unnested from their documents, past
 * the cursor and stamped no later than `maxTx` (the durable head), first `limit` in cursor order.
 * Only runs whose last events-appending write is at or after the stamp are opened.
 */
export function readRunEvents(
  db: Database.Database,
  after: EventCursor,
  limit: number,
  filter: RunEventFilter,
  maxTx: number,
): StoredRunEvent[] {
  const runClauses: string[] = [];
  const params: Array<string | number> = [];
  if (filter.runId !== undefined) {
    runClauses.push('r.run_id = ?');
    params.push(filter.runId);
  } else {
    runClauses.push('r.last_tx >= ?');
    params.push(after.tx);
    if (filter.type !== undefined) {
      runClauses.push('r.type = ?');
      params.push(filter.type);
    }
    if (filter.runIdPrefix !== undefined) {
      // substr, not LIKE: LIKE ignores ASCII case and gives `%` and `_` a meaning in a run id.
      runClauses.push('substr(r.run_id, 1, length(?)) = ?');
      params.push(filter.runIdPrefix, filter.runIdPrefix);
    }
    if (filter.includeInternal !== true) runClauses.push('r.internal = 0');
  }
  const eventClauses = ['tx <= ?', '(tx, runSeq, eventSeq) > (?, ?, ?)'];
  params.push(maxTx, after.tx, after.runSeq, after.eventSeq);
  if (filter.status !== undefined) {
    eventClauses.push('status = ?');
    params.push(filter.status);
  }
  params.push(limit);
  const rows = statement(
    db,
    `SELECT runId, runSeq, type, internal, taskId, status, event, tx, eventSeq FROM (
       SELECT r.run_id AS runId, r.seq AS runSeq, r.type AS type, r.internal AS internal,
         json_extract(r.doc, '$.taskId') AS taskId, e.value AS event,
         COALESCE(json_extract(e.value, '$.tx'), 0) AS tx, json_extract(e.value, '$.seq') AS eventSeq,
         COALESCE(json_extract(e.value, '$.status'), r.status) AS status
       FROM runs r, json_each(r.doc, '$.events') e
       WHERE ${runClauses.join(' AND ')}
     )
     WHERE ${eventClauses.join(' AND ')}
     ORDER BY tx, runSeq, eventSeq
     LIMIT ?`,
  ).all(...params) as EventRow[];
  return rows.map((row) => ({
    cursor: { tx: row.tx, runSeq: row.runSeq, eventSeq: row.eventSeq },
    runId: row.runId,
    taskId: row.taskId,
    type: row.type,
    internal: row.internal === 1,
    status: row.status,
    event: JSON.parse(row.event) as RunEvent,
  }));
}
