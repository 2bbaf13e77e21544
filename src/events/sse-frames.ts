import { encodeCursor } from '../domain/run-event-cursor.js';
import type { RunLogLine } from '../domain/run-log-line.js';
import type { StoredRunEvent } from '../store/types.js';
import type { RunEndData, RunEventData } from './run-event-data.js';

export type { RunEventData } from './run-event-data.js';

/**
 * The text/event-stream frames the event streams send (docs/events.md). Each is encoded once:
 * a live event's frame is one Buffer written to every client that takes it.
 */

export function runEventData(entry: StoredRunEvent): RunEventData {
  const { event } = entry;
  return {
    runId: entry.runId,
    taskId: entry.taskId,
    type: entry.type,
    status: entry.status,
    seq: event.seq,
    at: event.at,
    kind: event.kind,
    name: event.name,
    detail: event.detail ?? null,
  };
}

/** JSON has no raw line breaks outside strings, and escapes them inside: one `data:` line. */
export function runEventFrame(entry: StoredRunEvent): Buffer {
  return Buffer.from(`id: ${encodeCursor(entry.cursor)}\nevent: run\ndata: ${JSON.stringify(runEventData(entry))}\n\n`);
}

/** Live only: no `id`, so a client's resume position stays its last run event. */
export function logFrame(line: RunLogLine): Buffer {
  return Buffer.from(`event: log\ndata: ${JSON.stringify(line)}\n\n`);
}

export function endFrame(runId: string, status: string): Buffer {
  const data: RunEndData = { runId, status };
  return Buffer.from(`event: end\ndata: ${JSON.stringify(data)}\n\n`);
}

/** The last frame of a stream the service closes for a reason the client should know. */
export function errorFrame(code: string, message: string): Buffer {
  return Buffer.from(`event: error\ndata: ${JSON.stringify({ code, message })}\n\n`);
}

/** A comment line: ignored by clients, keeps proxies from closing an idle stream. */
export const KEEPALIVE_FRAME = Buffer.from(': keepalive\n\n');

/** Sent first: how long a client waits before reconnecting after the stream ends. */
export const RETRY_FRAME = Buffer.from('retry: 1000\n\n');
