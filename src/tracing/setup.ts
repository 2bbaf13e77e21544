import type { Logger } from 'pino';
import { noopServiceTracer, type ServiceTracer } from './service-tracer.js';

/** The service's tracer and how to flush what it has not exported yet. */
export interface Tracing {
  tracer: ServiceTracer;
  /** Exports the spans still buffered and stops the exporter (at shutdown). */
  shutdown(): Promise<void>;
}

const TRACING_OFF: Tracing = Object.freeze({ tracer: noopServiceTracer, shutdown: async () => {} });

const isSet = (value: string | undefined): boolean => value !== undefined && value.trim() !== '';

/**
 * Whether the environment asks for traces: an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`, or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` for traces alone), not vetoed by the standard switches
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return isSet(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) || isSet(env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/**
 * Tracing as the environment sets it. Off, nothing of the SDK is loaded (it is imported only
 * here, on demand) and every span call is a no-op; on, spans are exported over OTLP/HTTP.
 */
export async function startTracing(env: NodeJS.ProcessEnv, logger: Logger): Promise<Tracing> {
  if (!tracingRequested(env)) return TRACING_OFF;
  const { startOtlpTracing } = await import('./otlp-sdk.js');
  const tracing = startOtlpTracing(logger);
  logger.info('tracing on: spans are exported over OTLP/HTTP');
  return tracing;
}
