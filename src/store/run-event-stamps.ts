import type { RunEvent, RunRecord } from '../domain/run-record.js';
import { compareCursors, type EventCursor } from '../domain/run-event-cursor.js';
import type { RunEventFilter, StoredRunEvent } from './types.js';

/**
 * How every driver stamps the events a write appends and picks them out again for the change
 * feed (docs/events.md). The store owns `tx` and `status` of an event, as it owns a run's `seq`:
 * an event is new in a write when its number lies past the newest event of the record it
 * replaces, and only new events are stamped, so a record carried over keeps its stamps and an
 * event stored before stamps existed stays at tx 0 instead of being announced again.
 */

/** The number of the newest event of a record (0: none, or no record). */
function newestEventSeq(run: RunRecord | null): number {
  if (run === null) return 0;
  return run.events[run.events.length - 1]?.seq ?? 0;
}

/** True when the write from `current` to `next` appends at least one event. */
export function appendsEvents(current: RunRecord | null, next: RunRecord): boolean {
  return newestEventSeq(next) > newestEventSeq(current);
}

/**
 * `next` with each event it appends stamped with `tx` and the run's status after the write; the
 * same object when it appends none. `tx` is called at most once, and only when something is
 * stamped (a driver's counter moves only for writes that append events).
 */
export function stampNewEvents(current: RunRecord | null, next: RunRecord, tx: () => number): RunRecord {
  const known = newestEventSeq(current);
  if (newestEventSeq(next) <= known) return next;
  const stamp = tx();
  const events = next.events.map((event) => (event.seq > known ? { ...event, tx: stamp, status: event.status ?? next.status } : event));
  return { ...next, events };
}

/**
 * The stamp of the last write that appended events to a run (0: none stamped). Events are only
 * ever appended and stamps only grow, so the newest event carries it.
 */
export function lastEventTx(run: RunRecord): number {
  return run.events[run.events.length - 1]?.tx ?? 0;
}

export function eventCursorOf(run: Pick<RunRecord, 'seq'>, event: RunEvent): EventCursor {
  return { tx: event.tx ?? 0, runSeq: run.seq, eventSeq: event.seq };
}

/** The change-feed entry of one stored event. */
export function storedRunEvent(run: RunRecord, event: RunEvent): StoredRunEvent {
  return {
    cursor: eventCursorOf(run, event),
    runId: run.runId,
    taskId: run.taskId,
    type: run.type,
    internal: run.internal,
    status: event.status ?? run.status,
    event,
  };
}

/** Whether a run's events can pass the filter at all (the status is checked per event). */
export function runPassesFilter(run: Pick<RunRecord, 'runId' | 'type' | 'internal'>, filter: RunEventFilter): boolean {
  if (filter.runId !== undefined) return run.runId === filter.runId;
  if (filter.type !== undefined && run.type !== filter.type) return false;
  if (filter.runIdPrefix !== undefined && !run.runId.startsWith(filter.runIdPrefix)) return false;
  return filter.includeInternal === true || !run.internal;
}

/**
 * The events of one run a read returns, in cursor order: past `after`, stamped no later than
 * `maxTx` (what the driver may hand out now), passing the filter. For the drivers that hold runs
 * in memory; the SQL drivers do the same in their queries.
 */
export function runEventsPast(run: RunRecord, after: EventCursor, maxTx: number, filter: RunEventFilter): StoredRunEvent[] {
  if (!runPassesFilter(run, filter)) return [];
  const picked: StoredRunEvent[] = [];
  for (const event of run.events) {
    if ((event.tx ?? 0) > maxTx) continue;
    const entry = storedRunEvent(run, event);
    if (compareCursors(entry.cursor, after) <= 0) continue;
    if (filter.status !== undefined && entry.status !== filter.status) continue;
    picked.push(entry);
  }
  return picked;
}

/** The first `limit` of several runs' picked events, in cursor order. */
export function firstInCursorOrder(events: StoredRunEvent[], limit: number): StoredRunEvent[] {
  events.sort((a, b) => compareCursors(a.cursor, b.cursor));
  return events.length > limit ? events.slice(0, limit) : events;
}
