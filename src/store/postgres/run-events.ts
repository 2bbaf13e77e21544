import type pg from 'pg';
import type { RunEvent, RunStatus } from '../../domain/run-record.js';
import { afterTx, type EventCursor } from '../../domain/run-event-cursor.js';
import type { RunEventFilter, RunEventPage } from '../types.js';

/** The oldest transaction still running, as of the statement's snapshot (every older one has ended). */
const HORIZON = 'pg_snapshot_xmin(pg_current_snapshot())::text::bigint';

interface EventRow {
  horizon: string;
  held: boolean;
  run_id: string | null;
  run_seq: string;
  type: string;
  internal: boolean;
  task_id: string;
  status: RunStatus;
  event: RunEvent;
  tx: string;
  event_seq: string;
}

/**
 * The change feed on PostgreSQL. Stamps are transaction ids, and a transaction may commit after
 * one with a later id: an event is handed out only when its stamp lies below the snapshot's
 * horizon (`pg_snapshot_xmin`), i.e. when every transaction that could still add an event before
 * it has ended. A reader continuing from its last cursor therefore never skips an event that
 * commits late. `heldBack` tells it that committed events wait above the horizon (read again
 * soon). Horizon, page and flag come from one statement, so one snapshot.
 */
export async function readRunEvents(pool: pg.Pool, after: EventCursor, limit: number, filter: RunEventFilter): Promise<RunEventPage> {
  const params: unknown[] = [after.tx, after.runSeq, after.eventSeq, limit];
  const runClauses: string[] = [];
  if (filter.runId !== undefined) {
    params.push(filter.runId);
    runClauses.push(`r.run_id = $${params.length}`);
  } else {
    runClauses.push('r.last_tx >= $1');
    if (filter.type !== undefined) {
      params.push(filter.type);
      runClauses.push(`r.type = $${params.length}`);
    }
    if (filter.runIdPrefix !== undefined) {
      params.push(filter.runIdPrefix);
      // starts_with, not LIKE: `%` and `_` may be part of a run id.
      runClauses.push(`starts_with(r.run_id, $${params.length})`);
    }
    if (filter.includeInternal !== true) runClauses.push('NOT r.internal');
  }
  const eventClauses = ['e.tx < h.horizon', '(e.tx, r.seq, e.seq) > ($1::bigint, $2::bigint, $3::bigint)'];
  if (filter.status !== undefined) {
    params.push(filter.status);
    eventClauses.push(`COALESCE(e.value ->> 'status', r.status) = $${params.length}`);
  }
  const { rows } = await pool.query<EventRow>(
    `WITH h AS MATERIALIZED (SELECT ${HORIZON} AS horizon),
     page AS (
       SELECT r.run_id, r.seq AS run_seq, r.type, r.internal, r.doc ->> 'taskId' AS task_id,
         COALESCE(e.value ->> 'status', r.status) AS status, e.value AS event, e.tx, e.seq AS event_seq
       FROM h, runs r
       CROSS JOIN LATERAL (
         SELECT value, COALESCE((value ->> 'tx')::bigint, 0) AS tx, (value ->> 'seq')::bigint AS seq
         FROM jsonb_array_elements(r.doc -> 'events')
       ) AS e
       WHERE ${runClauses.join(' AND ')} AND ${eventClauses.join(' AND ')}
       ORDER BY e.tx, r.seq, e.seq
       LIMIT $4
     )
     SELECT h.horizon, EXISTS (SELECT 1 FROM runs WHERE last_tx >= h.horizon) AS held, page.*
     FROM h LEFT JOIN page ON true
     ORDER BY page.tx, page.run_seq, page.event_seq`,
    params,
  );
  const events = rows
    .filter((row) => row.run_id !== null)
    .map((row) => ({
      cursor: { tx: Number(row.tx), runSeq: Number(row.run_seq), eventSeq: Number(row.event_seq) },
      runId: row.run_id!,
      taskId: row.task_id,
      type: row.type,
      internal: row.internal,
      status: row.status,
      event: row.event,
    }));
  return { events, heldBack: rows[0]?.held === true };
}

/** Just below the horizon: every event a read can hand out now lies at or before it. */
export async function runEventsHead(pool: pg.Pool): Promise<EventCursor> {
  const { rows } = await pool.query<{ horizon: string }>(`SELECT ${HORIZON} AS horizon`);
  return afterTx(Number(rows[0]!.horizon) - 1);
}
