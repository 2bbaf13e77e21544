import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
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

function parentContext(traceparent: string | null | undefined) {
  const remote = fromTraceparent(traceparent);
  return remote ? trace.setSpanContext(ROOT_CONTEXT, remote) : ROOT_CONTEXT;
}

function runAttributes(run: TracedRun): Attributes {
  return { [ATTR.runId]: run.runId, [ATTR.type]: run.type, [ATTR.attempt]: run.attempt };
}

function traceparentOf(span: Span): string | null {
  return span.isRecording() ? toTraceparent(span.spanContext()) : null;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Wraps an SDK span in the port's shape; ends it once, whatever the caller does after. */
function openSpan(span: Span): AdmissionSpan {
  let ended = false;
  const finish = (outcome: string, error: string | null | undefined) => {
    if (ended) return;
    ended = true;
    span.setAttribute(ATTR.outcome, outcome);
    if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: error.slice(0, MAX_STATUS_MESSAGE) });
    span.end();
  };
  let traceparent: string | null | undefined;
  return {
    // Formatted on first read: most spans are never asked for it.
    get traceparent() {
      if (traceparent === undefined) traceparent = traceparentOf(span);
      return traceparent;
    },
    identify(run, existing) {
      span.setAttributes(runAttributes(run));
      const linked = fromTraceparent(existing);
      if (linked) span.addLink({ context: linked });
    },
    end: (outcome, error) => finish(outcome, error),
    fail(err) {
      if (ended) return;
      if (err instanceof Error) span.recordException({ name: err.name, message: err.message });
      finish('error', errorMessage(err));
    },
  };
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
      let traceparent: string | null | undefined;
      return {
        get traceparent() {
          if (traceparent === undefined) traceparent = traceparentOf(span);
          return traceparent;
        },
        end(statusCode) {
          span.setAttribute('http.response.status_code', statusCode);
          // Server spans are failed by 5xx only: a 4xx is the client's mistake, answered correctly.
          if (statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        },
      };
    },

    startAdmission(type, source, parent) {
      const attributes = { [ATTR.type]: type, [ATTR.source]: source };
      return openSpan(tracer.startSpan(SPAN_NAMES.admission, { kind: SpanKind.INTERNAL, attributes }, parentContext(parent)));
    },

    recordQueueWait(run, readyAt, claimedAt, instance) {
      const span = tracer.startSpan(
        SPAN_NAMES.queueWait,
        { kind: SpanKind.INTERNAL, startTime: readyAt, attributes: { ...runAttributes(run), [ATTR.instance]: instance } },
        parentContext(run.traceparent),
      );
      // A clock step between instances must not give a span that ends before it starts.
      span.end(claimedAt.getTime() < readyAt.getTime() ? readyAt : claimedAt);
    },

    startExecution(run, instance): OpenSpan {
      const attributes = { ...runAttributes(run), [ATTR.instance]: instance };
      return openSpan(tracer.startSpan(SPAN_NAMES.execution, { kind: SpanKind.INTERNAL, attributes }, parentContext(run.traceparent)));
    },

    startFinalize(run): OpenSpan {
      return openSpan(tracer.startSpan(SPAN_NAMES.finalize, { kind: SpanKind.INTERNAL, attributes: runAttributes(run) }, parentContext(run.traceparent)));
    },
  };
}
