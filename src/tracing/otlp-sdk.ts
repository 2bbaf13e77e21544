import { diag, DiagLogLevel } from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { Logger } from 'pino';
import { createOtelServiceTracer } from './otel-service-tracer.js';
import type { OtlpProtocol, Tracing } from './setup.js';

/** service.name when OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) names none. */
export const DEFAULT_SERVICE_NAME = 'task-orchestrator';
const INSTRUMENTATION_SCOPE = 'task-orchestrator';
/** How long a stop waits for the last spans to be sent: an unreachable receiver must not hold it. */
const SHUTDOWN_WAIT_MS = 5000;

/**
 * The SDK half of tracing, loaded only when an endpoint is configured (setup.ts). The exporter,
 * JSON or protobuf over HTTP as `protocol` says, reads its endpoint, headers, compression and
 * timeout from the standard OTEL_EXPORTER_OTLP_* variables; the
 * batch processor its queue sizes from OTEL_BSP_*. The provider is not registered globally:
 * the service hands its tracer to the code that makes spans, and parents travel explicitly.
 */
export function startOtlpTracing(logger: Logger, protocol: OtlpProtocol = 'http/json'): Tracing {
  // An unreachable collector must be visible in the service's log, not only to a debugger.
  diag.setLogger(
    {
      error: (message, ...args) => logger.warn({ args }, `tracing: ${message}`),
      warn: (message, ...args) => logger.warn({ args }, `tracing: ${message}`),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME }))
    .merge(detectResources({ detectors: [envDetector] }));
  const exporter = protocol === 'http/protobuf' ? new OtlpProtobufTraceExporter() : new OtlpJsonTraceExporter();
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  return {
    tracer: createOtelServiceTracer(provider.getTracer(INSTRUMENTATION_SCOPE)),
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          logger.warn('tracing: the last spans were not sent before the stop deadline');
          resolve();
        }, SHUTDOWN_WAIT_MS);
      });
      try {
        await Promise.race([provider.shutdown().catch((err: unknown) => logger.warn({ err }, 'tracing: the last export failed')), waited]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
