import { INVALID_SPANID, INVALID_TRACEID, TraceFlags, type SpanContext } from '@opentelemetry/api';

/** W3C Trace Context `traceparent`: version 00, 32-hex trace id, 16-hex span id, 2-hex flags. */
const TRACEPARENT_LENGTH = 55;
const TRACE_ID = [3, 35] as const;
const SPAN_ID = [36, 52] as const;
const FLAGS = [53, 55] as const;
const DASH = 45;

/**
 * Whether `value[from, to)` is lowercase hex, checked character by character: each run's spans
 * parse their parent several times, and a regular expression with captures cost more.
 */
function isLowerHex(value: string, [from, to]: readonly [number, number]): boolean {
  for (let i = from; i < to; i++) {
    const c = value.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

function isTraceparent(value: string): boolean {
  return (
    value.length === TRACEPARENT_LENGTH &&
    value.startsWith('00') &&
    value.charCodeAt(2) === DASH &&
    value.charCodeAt(TRACE_ID[1]) === DASH &&
    value.charCodeAt(SPAN_ID[1]) === DASH &&
    isLowerHex(value, TRACE_ID) &&
    isLowerHex(value, SPAN_ID) &&
    isLowerHex(value, FLAGS)
  );
}

/** A span context as the `traceparent` a run record keeps and a worker's TRACEPARENT carries. */
export function toTraceparent(context: SpanContext): string {
  const flags = (context.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${context.traceId}-${context.spanId}-${flags}`;
}

/**
 * The remote span context a stored or received `traceparent` names; null when absent or not a
 * valid one (an all-zero id, another version, stray text): the span then starts a new trace.
 */
export function fromTraceparent(value: string | null | undefined): SpanContext | null {
  if (typeof value !== 'string') return null;
  // What this service writes is already in canonical form; anything else is normalized first.
  let text = value;
  if (!isTraceparent(text)) {
    text = value.trim().toLowerCase();
    if (!isTraceparent(text)) return null;
  }
  const traceId = text.slice(...TRACE_ID);
  const spanId = text.slice(...SPAN_ID);
  if (traceId === INVALID_TRACEID || spanId === INVALID_SPANID) return null;
  return { traceId, spanId, traceFlags: Number.parseInt(text.slice(...FLAGS), 16) & TraceFlags.SAMPLED, isRemote: true };
}
