/**
 * A position in the store's change feed of run events (docs/events.md). Events are ordered by
 * the commit order of the write that appended them (`tx`, assigned by the store), then by their
 * run's admission number, then by their number within the run: one write can append several
 * events to several runs, and all of them commit together.
 */
export interface EventCursor {
  tx: number;
  runSeq: number;
  eventSeq: number;
}

/** Before every event, also those stored before stamps existed (tx 0, runSeq and eventSeq from 1). */
export const FEED_START: EventCursor = Object.freeze({ tx: 0, runSeq: 0, eventSeq: 0 });

/** After every event of writes up to `tx`, before any of a later write. */
export function afterTx(tx: number): EventCursor {
  return { tx, runSeq: Number.MAX_SAFE_INTEGER, eventSeq: Number.MAX_SAFE_INTEGER };
}

/** Negative, zero or positive as `a` lies before, at or after `b`. */
export function compareCursors(a: EventCursor, b: EventCursor): number {
  return a.tx - b.tx || a.runSeq - b.runSeq || a.eventSeq - b.eventSeq;
}

/**
 * The SSE `id:` of an event. Opaque to clients (they only send it back as Last-Event-ID); the
 * three numbers in base 36 keep it short.
 */
export function encodeCursor(cursor: EventCursor): string {
  return `${cursor.tx.toString(36)}.${cursor.runSeq.toString(36)}.${cursor.eventSeq.toString(36)}`;
}

const ENCODED = /^([0-9a-z]{1,11})\.([0-9a-z]{1,11})\.([0-9a-z]{1,11})$/;

/** The cursor an `id:` names, or null when the text is not one this service sent. */
export function decodeCursor(text: string): EventCursor | null {
  const match = ENCODED.exec(text.trim());
  if (match === null) return null;
  const [tx, runSeq, eventSeq] = [match[1]!, match[2]!, match[3]!].map((part) => parseInt(part, 36));
  if (![tx, runSeq, eventSeq].every((n) => Number.isSafeInteger(n))) return null;
  return { tx: tx!, runSeq: runSeq!, eventSeq: eventSeq! };
}
