import { createHash } from 'node:crypto';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { AdmissionSpan, OpenSpan, RequestSpan, ServiceTracer, TracedRun } from './service-tracer.js';
import { fromTraceparent, toTraceparent } from './traceparent.js';

/** Span names: one per phase of a run (docs/tracing.md lists them with their attributes). */
export const SPAN_NAMES = {
  admission: 'task.admission',
  queueWait: 'task.queue_wait',
  execution: 'task.execute',
  finalize: 'task.finalize',
} as const;

/** Attribute keys of the run spans. */
export const ATTR = {
  runId: 'task.run_id',
  type: 'task.type',
  attempt: 'task.attempt',
  source: 'task.source',
  outcome: 'task.outcome',
  instance: 'task.instance',
} as const;

/** A failure message on a span is bounded: it names what went wrong, it is not a log. */
const MAX_STATUS_MESSAGE = 256;

function parentContext(traceparent: string | null | undefined): Context {
  const remote = fromTraceparent(traceparent);
  return remote ? trace.setSpanContext(ROOT_CONTEXT, remote) : ROOT_CONTEXT;
}

/**
 * The parent of a run's later spans: its stored trace context, or, for a run admitted while
 * tracing was off (none stored), one derived from its run id, so that its queue waits,
 * attempts and finalize still share one trace (on every instance alike) instead of each
 * starting a trace of its own. The derived parent is never exported itself.
 */
function runContext(run: TracedRun): Context {
  const stored = fromTraceparent(run.traceparent);
  if (stored !== null) return trace.setSpanContext(ROOT_CONTEXT, stored);
  const digest = createHash('sha256').update(`run-trace:${run.runId}`).digest('hex');
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: digest.slice(0, 32), spanId: digest.slice(32, 48), traceFlags: TraceFlags.SAMPLED, isRemote: true });
}

function runAttributes(run: TracedRun): Attributes {
  return { [ATTR.runId]: run.runId, [ATTR.type]: run.type, [ATTR.attempt]: run.attempt };
}

// One literal, not runAttributes() spread into another: the spread cost about a microsecond a span.
function runAttributesOn(run: TracedRun, instance: string): Attributes {
  return { [ATTR.runId]: run.runId, [ATTR.type]: run.type, [ATTR.attempt]: run.attempt, [ATTR.instance]: instance };
}

function traceparentOf(span: Span): string | null {
  return span.isRecording() ? toTraceparent(span.spanContext()) : null;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/*
 * The handles below are classes, not object literals: a literal with a getter closing over its
 * span gets a hidden class of its own each time it is made, which cost more than the SDK span
 * itself (several microseconds and old-space garbage per span, measured).
 */

/** One SDK span and its trace context, formatted on first read: most spans are never asked for it. */
class SpanHandle {
  private formatted: string | null | undefined = undefined;

  constructor(protected readonly span: Span) {}

  get traceparent(): string | null {
    if (this.formatted === undefined) this.formatted = traceparentOf(this.span);
    return this.formatted;
  }
}

/** The port's shape over one SDK span; ends it once, whatever the caller does after. */
class RunSpanHandle extends SpanHandle implements AdmissionSpan {
  private ended = false;

  identify(run: TracedRun, existing?: string | null): void {
    this.span.setAttributes(runAttributes(run));
    const linked = fromTraceparent(existing);
    if (linked) this.span.addLink({ context: linked });
  }

  end(outcome: string, error?: string | null): void {
    if (this.ended) return;
    this.ended = true;
    this.span.setAttribute(ATTR.outcome, outcome);
    if (error) this.span.setStatus({ code: SpanStatusCode.ERROR, message: error.slice(0, MAX_STATUS_MESSAGE) });
    this.span.end();
  }

  fail(err: unknown): void {
    if (this.ended) return;
    if (err instanceof Error) this.span.recordException({ name: err.name, message: err.message });
    this.end('error', errorMessage(err));
  }
}

class RequestSpanHandle extends SpanHandle implements RequestSpan {
  end(statusCode: number): void {
    this.span.setAttribute('http.response.status_code', statusCode);
    // Server spans are failed by 5xx only: a 4xx is the client's mistake, answered correctly.
    if (statusCode >= 500) this.span.setStatus({ code: SpanStatusCode.ERROR });
    this.span.end();
  }
}

/**
 * The port over an OpenTelemetry tracer. Parents are passed explicitly as stored `traceparent`
 * strings, never taken from an ambient context: a run's later spans are started by whichever
 * instance claims it, long after the request that admitted it has ended.
 */
export function createOtelServiceTracer(tracer: Tracer): ServiceTracer {
  return {
    enabled: true,

    startRequest(method, route, incoming): RequestSpan {
      // Named by the route pattern, never the path: ids in a path would make every name unique.
      const attributes: Attributes = route === undefined ? { 'http.request.method': method } : { 'http.request.method': method, 'http.route': route };
      const span = tracer.startSpan(route === undefined ? method : `${method} ${route}`, { kind: SpanKind.SERVER, attributes }, parentContext(incoming));
      return new RequestSpanHandle(span);
    },

    startAdmission(type, source, parent): AdmissionSpan {
      const attributes: Attributes = { [ATTR.type]: type, [ATTR.source]: source };
      return new RunSpanHandle(tracer.startSpan(SPAN_NAMES.admission, { kind: SpanKind.INTERNAL, attributes }, parentContext(parent)));
    },

    recordQueueWait(run, readyAt, claimedAt, instance) {
      const span = tracer.startSpan(
        SPAN_NAMES.queueWait,
        { kind: SpanKind.INTERNAL, startTime: readyAt, attributes: runAttributesOn(run, instance) },
        runContext(run),
      );
      // A clock step between instances must not give a span that ends before it starts.
      span.end(claimedAt.getTime() < readyAt.getTime() ? readyAt : claimedAt);
    },

    startExecution(run, instance): OpenSpan {
      return new RunSpanHandle(tracer.startSpan(SPAN_NAMES.execution, { kind: SpanKind.INTERNAL, attributes: runAttributesOn(run, instance) }, runContext(run)));
    },

    startFinalize(run): OpenSpan {
      return new RunSpanHandle(tracer.startSpan(SPAN_NAMES.finalize, { kind: SpanKind.INTERNAL, attributes: runAttributes(run) }, runContext(run)));
    },
  };
}
