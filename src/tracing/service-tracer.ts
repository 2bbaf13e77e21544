/**
 * The tracing port: what the HTTP layer and the task runtime tell about a request and a run.
 * It names no OpenTelemetry type, so the domain never depends on the SDK; with tracing off
 * (no OTLP endpoint configured) every call goes to `noopServiceTracer`, which allocates nothing.
 * A run's trace context travels as a W3C `traceparent` string, stored on the run record, so an
 * attempt claimed by another instance continues the trace its admission started.
 */

/** What a run span is told about its run (never the payload or the result). */
export interface TracedRun {
  runId: string;
  type: string;
  attempt: number;
  /** The run's stored trace context (its admission span); absent on runs admitted untraced. */
  traceparent?: string | null;
}

/** One open span, ended exactly once. */
export interface OpenSpan {
  /** This span's context as a W3C traceparent (children and workers continue from it); null when not recorded. */
  readonly traceparent: string | null;
  /**
   * Ends the span. `outcome` is a short word (admitted, success, retrying, worker-crash); an
   * `error` marks the span failed with that message.
   */
  end(outcome: string, error?: string | null): void;
  /** Ends the span failed by a thrown error. */
  fail(err: unknown): void;
}

export interface AdmissionSpan extends OpenSpan {
  /** Names the run the admission stored or found; `existing` is a found run's own trace context (linked). */
  identify(run: TracedRun, existing?: string | null): void;
}

export interface RequestSpan {
  /** The request span's context as a W3C traceparent: the admission it leads to is its child. */
  readonly traceparent: string | null;
  end(statusCode: number): void;
}

export interface ServiceTracer {
  /** False when tracing is off: callers may skip work whose only use is a span. */
  readonly enabled: boolean;
  /**
   * The server span of one HTTP request: `route` is the matched route pattern (undefined when no
   * route matched), `incoming` the caller's `traceparent` header, if any.
   */
  startRequest(method: string, route: string | undefined, incoming: string | undefined): RequestSpan;
  /** The admission of one task request, child of `parent` (the request span) when given. */
  startAdmission(type: string, source: string, parent: string | null | undefined): AdmissionSpan;
  /** The time the attempt just claimed spent in the queue, from `readyAt` until `claimedAt`. */
  recordQueueWait(run: TracedRun, readyAt: Date, claimedAt: Date, instance: string): void;
  /** One attempt's execution (in-process handler, or worker spawn and run). */
  startExecution(run: TracedRun, instance: string): OpenSpan;
  /** The recording of one attempt's outcome and what follows it (retries, listeners). */
  startFinalize(run: TracedRun): OpenSpan;
}

const NOOP_SPAN: AdmissionSpan & RequestSpan = Object.freeze({
  traceparent: null,
  end: () => {},
  fail: () => {},
  identify: () => {},
});

/** Tracing off: the same calls, no spans, no allocation. */
export const noopServiceTracer: ServiceTracer = Object.freeze({
  enabled: false,
  startRequest: () => NOOP_SPAN,
  startAdmission: () => NOOP_SPAN,
  recordQueueWait: () => {},
  startExecution: () => NOOP_SPAN,
  startFinalize: () => NOOP_SPAN,
});
