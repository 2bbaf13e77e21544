import { SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createOtelServiceTracer } from '../../src/tracing/otel-service-tracer.js';
import type { ServiceTracer } from '../../src/tracing/service-tracer.js';

export interface MemoryTracing {
  tracer: ServiceTracer;
  /** Every span ended so far. */
  spans(): ReadableSpan[];
  /** The spans of one name, in the order they ended. */
  named(name: string): ReadableSpan[];
  /** The one server span of `route`. */
  serverSpan(method: string, route: string): ReadableSpan;
}

/** The service's tracer over an SDK provider of its own, exporting into memory as each span ends. */
export function memoryTracing(): MemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const spans = () => exporter.getFinishedSpans();
  return {
    tracer: createOtelServiceTracer(provider.getTracer('test')),
    spans,
    named: (name) => spans().filter((s) => s.name === name),
    serverSpan(method, route) {
      const found = spans().filter((s) => s.kind === SpanKind.SERVER && s.name === `${method} ${route}`);
      if (found.length !== 1) throw new Error(`expected one ${method} ${route} server span, found ${found.length}`);
      return found[0]!;
    },
  };
}

/** The parent span id of `span` (undefined for a root). */
export const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
export const traceOf = (span: ReadableSpan): string => span.spanContext().traceId;
export const idOf = (span: ReadableSpan): string => span.spanContext().spanId;
