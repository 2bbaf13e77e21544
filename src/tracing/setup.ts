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

/** The OTLP/HTTP encodings the exporter speaks. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/**
 * The encoding of the exports, from `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else
 * `OTEL_EXPORTER_OTLP_PROTOCOL`, else JSON. The specification's default is protobuf; JSON stays
 * the default here because receivers set up for this service's earlier releases expect it, and
 * it cost less CPU than protobuf where it was measured (docs/tracing.md). Receivers that take
 * protobuf only get it with `http/protobuf`. Any other value (`grpc`) is not spoken here:
 * `unsupported` names it, and JSON over HTTP is used.
 */
export function otlpProtocol(env: NodeJS.ProcessEnv): { protocol: OtlpProtocol; unsupported: string | null } {
  const asked = [env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, env.OTEL_EXPORTER_OTLP_PROTOCOL].map((v) => v?.trim().toLowerCase()).find((v) => v !== undefined && v !== '');
  if (asked === undefined || asked === 'http/json') return { protocol: 'http/json', unsupported: null };
  if (asked === 'http/protobuf') return { protocol: 'http/protobuf', unsupported: null };
  return { protocol: 'http/json', unsupported: asked };
}

/**
 * Tracing as the environment sets it. Off, nothing of the SDK is loaded (it is imported only
 * here, on demand) and every span call is a no-op; on, spans are exported over OTLP/HTTP.
 */
export async function startTracing(env: NodeJS.ProcessEnv, logger: Logger): Promise<Tracing> {
  if (!tracingRequested(env)) return TRACING_OFF;
  const { protocol, unsupported } = otlpProtocol(env);
  if (unsupported !== null) logger.warn({ protocol: unsupported }, `tracing: OTLP protocol ${unsupported} is not supported; exporting http/json`);
  const { startOtlpTracing } = await import('./otlp-sdk.js');
  const tracing = startOtlpTracing(logger, protocol);
  logger.info({ protocol }, 'tracing on: spans are exported over OTLP/HTTP');
  return tracing;
}
