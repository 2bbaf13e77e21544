import { TraceFlags } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { otlpProtocol, tracingRequested } from '../../src/tracing/setup.js';
import { noopServiceTracer } from '../../src/tracing/service-tracer.js';
import { fromTraceparent, toTraceparent } from '../../src/tracing/traceparent.js';
import { memoryTracing, parentOf, traceOf } from '../support/tracing.js';

describe('traceparent (the trace context a run record stores)', () => {
  it('round-trips a span context', () => {
    const value = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const context = fromTraceparent(value);
    expect(context).toEqual({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED, isRemote: true });
    expect(toTraceparent(context!)).toBe(value);
  });

  it('takes a traceparent in capitals or with surrounding blanks as its canonical form, and an unsampled one as unsampled', () => {
    const canonical = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED, isRemote: true };
    expect(fromTraceparent('00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01')).toEqual(canonical);
    expect(fromTraceparent(' 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\n')).toEqual(canonical);
    expect(fromTraceparent('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00')).toEqual({ ...canonical, traceFlags: TraceFlags.NONE });
  });

  it('refuses what is no valid traceparent: the span then starts a trace of its own', () => {
    for (const value of [
      undefined,
      null,
      '',
      'garbage',
      '00-00000000000000000000000000000000-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01',
      '01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra',
      '00-0af7651916cd43dd8448eb211c80319g-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c_b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333-01x',
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-1',
    ]) {
      expect(fromTraceparent(value), String(value)).toBeNull();
    }
  });
});

describe('tracing switch', () => {
  it('is on only with an OTLP endpoint, and off again by the standard vetoes', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_SERVICE_NAME: 'svc', OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });

  it('exports JSON unless OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL asks for protobuf; names a protocol it does not speak', () => {
    expect(otlpProtocol({})).toEqual({ protocol: 'http/json', unsupported: null });
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })).toEqual({ protocol: 'http/protobuf', unsupported: null });
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: ' HTTP/Protobuf ' })).toEqual({ protocol: 'http/protobuf', unsupported: null });
    // The traces variable wins over the general one; an empty one does not count.
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' })).toEqual({ protocol: 'http/json', unsupported: null });
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: ' ' })).toEqual({ protocol: 'http/protobuf', unsupported: null });
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual({ protocol: 'http/json', unsupported: 'grpc' });
  });

  it('off, hands out one shared no-op span: nothing is allocated per call', () => {
    const a = noopServiceTracer.startAdmission('doc-sync', 'api', null);
    const b = noopServiceTracer.startExecution({ runId: 'r', type: 'doc-sync', attempt: 1 }, 'i');
    expect(a).toBe(b);
    expect(a.traceparent).toBeNull();
  });

  it('keeps the later spans of a run admitted while tracing was off in one trace, derived from its run id', () => {
    const tracing = memoryTracing();
    const untraced = { runId: 'run-untraced', type: 'doc-sync', attempt: 1, traceparent: null };
    const at = new Date();
    tracing.tracer.recordQueueWait(untraced, at, at, 'i1');
    tracing.tracer.startExecution(untraced, 'i1').end('success');
    tracing.tracer.startFinalize(untraced).end('success');
    tracing.tracer.startExecution({ ...untraced, attempt: 2 }, 'i2').end('success');
    const spans = tracing.spans().filter((s) => s.attributes['task.run_id'] === 'run-untraced');
    expect(spans).toHaveLength(4);
    expect(new Set(spans.map(traceOf)).size).toBe(1);
    expect(new Set(spans.map(parentOf)).size).toBe(1);
    // Another run gets a trace of its own; a stored traceparent still wins.
    tracing.tracer.startFinalize({ ...untraced, runId: 'run-other' }).end('success');
    const stored = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    tracing.tracer.startFinalize({ ...untraced, runId: 'run-traced', traceparent: stored }).end('success');
    const finalizeOf = (runId: string) => tracing.named('task.finalize').find((s) => s.attributes['task.run_id'] === runId)!;
    expect(traceOf(finalizeOf('run-other'))).not.toBe(traceOf(spans[0]!));
    expect(traceOf(finalizeOf('run-traced'))).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(parentOf(finalizeOf('run-traced'))).toBe('b7ad6b7169203331');
  });
});
