import { isSpanContextValid, TraceFlags, type SpanContext } from '@opentelemetry/api';

/** W3C Trace Context `traceparent`: version 00, 32-hex trace id, 16-hex span id, 2-hex flags. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

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
  const match = TRACEPARENT.exec(value.trim().toLowerCase());
  if (!match) return null;
  const context: SpanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return isSpanContextValid(context) ? context : null;
}
