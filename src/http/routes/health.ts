import Type from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import type { AppConfig } from '../../config/types.js';
import { healthPublic, routeFamily, type RouteContext, type RouteSpec } from '../route-spec.js';

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

interface HelperUrls {
  metrics: string | null;
  knowledgeSummary: string;
  persistenceHealth: string;
  openapi: string;
}

/** Distinct caller bases remembered; the Host header is the caller's to choose, so the map is bounded. */
const HELPER_URLS_MAX = 64;

function helperUrls(base: URL, metricsPort: number | null): HelperUrls {
  const at = (path: string) => new URL(path, base).toString();
  return {
    metrics: metricsPort === null ? null : `${base.protocol}//${base.hostname}:${metricsPort}/metrics`,
    knowledgeSummary: at('/api/knowledge/summary'),
    persistenceHealth: at('/api/persistence/health'),
    openapi: at('/api/openapi.json'),
  };
}

/**
 * The `urls` object as JSON for the caller's base: scheme and Host header, so helper URLs work
 * from the caller's side (through a port mapping too). A missing or unparsable Host falls back to
 * the socket's local address. Parsing URLs is the costly part of /health, so the JSON of each
 * recent caller base is kept (a liveness probe asks with the same Host every time).
 */
function helperUrlsCache(): (request: FastifyRequest, metricsPort: number | null) => string {
  const known = new Map<string, string>();
  // The last answer, compared field by field: a probe repeating itself builds no key.
  let last = { protocol: '', host: '', metricsPort: null as number | null, json: '' };
  return (request, metricsPort) => {
    const protocol = request.protocol;
    const host = request.host;
    if (host === last.host && protocol === last.protocol && metricsPort === last.metricsPort && last.json !== '') return last.json;
    const origin = `${protocol}://${host}`;
    const key = `${origin} ${metricsPort}`;
    const cached = known.get(key);
    if (cached !== undefined) {
      last = { protocol, host, metricsPort, json: cached };
      return cached;
    }
    let base: URL;
    try {
      base = new URL(origin);
    } catch {
      // Not remembered: the socket's address is per connection, not per Host.
      const socket = request.raw.socket;
      const local = socket.localAddress?.includes(':') ? `[${socket.localAddress}]` : socket.localAddress;
      return JSON.stringify(helperUrls(new URL(`${protocol}://${local}:${socket.localPort}`), metricsPort));
    }
    const urls = JSON.stringify(helperUrls(base, metricsPort));
    if (known.size >= HELPER_URLS_MAX) known.clear();
    known.set(key, urls);
    last = { protocol, host, metricsPort, json: urls };
    return urls;
  };
}

/** GET /health: shallow liveness with helper URLs built from the request's host. */
export function healthRoutes(deps: { config: AppConfig; clock: Clock; metricsPort: () => number | null }): RouteSpec[] {
  const startedAt = deps.clock.now().getTime();
  const urlsFor = helperUrlsCache();
  // Probes arrive many to a millisecond under load: the ISO text is made once per millisecond.
  let stampedAt = Number.NaN;
  let stamp = '';
  return [
    routeFamily({ tags: ['health'], access: healthPublic }).get('/health', {
      operationId: 'getHealth',
      summary: 'Shallow liveness with helper URLs',
      description:
        'Answers while the process serves HTTP. Helper URLs use the request’s scheme and host; the metrics URL uses the same host name with the metrics port, and is null when metrics are disabled.',
      schema: { response: { 200: HealthBody } },
      // Synchronous: a liveness probe waits on nothing, so its answer goes out without a promise.
      handler: ({ request }: RouteContext) => {
        const now = deps.clock.now().getTime();
        if (now !== stampedAt) {
          stampedAt = now;
          stamp = new Date(now).toISOString();
        }
        const metricsPort = deps.config.metricsEnabled ? deps.metricsPort() : null;
        const uptimeSeconds = Math.max(0, Math.round((now - startedAt) / 100) / 10);
        // The bytes JSON.stringify would make of {status, timestamp, uptimeSeconds, urls}, without
        // serializing the unchanging part again on every probe.
        return {
          json: `{"status":"healthy","timestamp":"${stamp}","uptimeSeconds":${uptimeSeconds},"urls":${urlsFor(request, metricsPort)}}`,
        };
      },
    }),
  ];
}
