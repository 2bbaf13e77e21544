import Type from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import type { AppConfig } from '../../config/types.js';
import type { RouteContext, RouteSpec } from '../route-spec.js';

const NullableUrl = Type.Union([Type.String({ format: 'uri' }), Type.Null()]);

const HealthBody = Type.Object({
  status: Type.Literal('healthy'),
  timestamp: Type.String({ format: 'date-time' }),
  uptimeSeconds: Type.Number({ minimum: 0 }),
  urls: Type.Object({
    metrics: NullableUrl,
    knowledgeSummary: Type.String({ format: 'uri' }),
    persistenceHealth: Type.String({ format: 'uri' }),
    openapi: Type.String({ format: 'uri' }),
  }),
});

/**
 * Where the caller reached the service: scheme and Host header, so helper URLs work from the
 * caller's side (through a port mapping too). A missing or unparsable Host falls back to the
 * socket's local address.
 */
function callerBase(request: FastifyRequest): URL {
  try {
    return new URL(`${request.protocol}://${request.host}`);
  } catch {
    const socket = request.raw.socket;
    const host = socket.localAddress?.includes(':') ? `[${socket.localAddress}]` : socket.localAddress;
    return new URL(`${request.protocol}://${host}:${socket.localPort}`);
  }
}

/** GET /health: shallow liveness with helper URLs built from the request's host. */
export function healthRoutes(deps: { config: AppConfig; clock: Clock; metricsPort: () => number | null }): RouteSpec[] {
  const startedAt = deps.clock.now().getTime();
  return [
    {
      method: 'GET',
      path: '/health',
      operationId: 'getHealth',
      summary: 'Shallow liveness with helper URLs',
      description:
        'Answers while the process serves HTTP. Helper URLs use the request’s scheme and host; the metrics URL uses the same host name with the metrics port, and is null when metrics are disabled.',
      tags: ['health'],
      access: { kind: 'public', bucket: 'health-public' },
      schema: { response: { 200: HealthBody } },
      handler: async ({ request }: RouteContext) => {
        const now = deps.clock.now();
        const base = callerBase(request);
        const metricsPort = deps.config.metricsEnabled ? deps.metricsPort() : null;
        const at = (path: string) => new URL(path, base).toString();
        return {
          body: {
            status: 'healthy',
            timestamp: now.toISOString(),
            uptimeSeconds: Math.max(0, Math.round((now.getTime() - startedAt) / 100) / 10),
            urls: {
              metrics: metricsPort === null ? null : `${base.protocol}//${base.hostname}:${metricsPort}/metrics`,
              knowledgeSummary: at('/api/knowledge/summary'),
              persistenceHealth: at('/api/persistence/health'),
              openapi: at('/api/openapi.json'),
            },
          },
        };
      },
    },
  ];
}
