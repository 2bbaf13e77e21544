import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CachedResponse, ResponseCache } from './response-cache.js';
import { isProtectedRoute, type RouteContext, type RouteReply, type RouteSpec } from './route-spec.js';

const JSON_TYPE = 'application/json; charset=utf-8';

function contextOf(request: FastifyRequest): RouteContext {
  return {
    identity: request.identity,
    requestId: request.id,
    query: request.query,
    params: request.params,
    body: request.body,
    request,
  };
}

/**
 * Calls the handler with the context its access kind promises. Authentication is an onRequest
 * hook of every protected route, so a protected handler reached without an identity means the
 * route was wired wrongly: fail closed rather than run the work anonymously.
 */
function invoke(route: RouteSpec, ctx: RouteContext): Promise<RouteReply> {
  if (!isProtectedRoute(route)) return route.handler({ ...ctx, identity: null });
  const { identity } = ctx;
  if (identity === null) throw new Error(`protected route ${route.method} ${route.path} reached without an identity`);
  return route.handler({ ...ctx, identity });
}

/** Serializes a handler's reply once; the same text is sent and, for cached reads, stored. */
function render(result: RouteReply): CachedResponse {
  const statusCode = result.statusCode ?? 200;
  const empty = result.body === undefined || statusCode === 204;
  return {
    statusCode,
    contentType: JSON_TYPE,
    headers: result.headers ?? {},
    body: empty ? '' : JSON.stringify(result.body),
  };
}

function send(reply: FastifyReply, response: CachedResponse): FastifyReply {
  reply.code(response.statusCode);
  for (const [name, value] of Object.entries(response.headers)) reply.header(name, value);
  if (response.body === '') return reply.send();
  return reply.type(response.contentType).send(response.body);
}

function sendStream(reply: FastifyReply, result: RouteReply, stream: NonNullable<RouteReply['stream']>): FastifyReply {
  reply.code(result.statusCode ?? 200);
  for (const [name, value] of Object.entries(result.headers ?? {})) reply.header(name, value);
  return reply.type(stream.contentType).send(Readable.from(stream.chunks));
}

/**
 * The fastify handler of one route: builds the RouteContext (validated input plus the identity
 * from authentication) and calls the table's handler. For cached routes it looks the response up
 * first (this runs after authentication and rate limiting, which are onRequest hooks) and stores
 * 200s. A cache that cannot be reached is skipped, not fatal: the read is served uncached.
 */
export function createRouteHandler(route: RouteSpec, cache: ResponseCache) {
  return async function handleRoute(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const ctx = contextOf(request);
    if (!route.cache) {
      reply.header('Cache-Control', 'no-store');
      const result = await invoke(route, ctx);
      if (result.stream) return sendStream(reply, result, result.stream);
      return send(reply, render(result));
    }

    let key: string | null = null;
    try {
      key = await cache.keyFor(route, ctx, request);
      const hit = await cache.read(key);
      if (hit) {
        reply.header('X-Svc-Cache', 'hit').header('X-Svc-Cache-Store', cache.storeLabel);
        cache.applyFreshnessHeaders(reply, route);
        return send(reply, hit);
      }
    } catch (err) {
      request.log.warn({ cause: (err as Error).message }, 'response cache unavailable; serving uncached');
      key = null;
    }

    const response = render(await invoke(route, ctx));
    reply.header('X-Svc-Cache', 'miss').header('X-Svc-Cache-Store', cache.storeLabel);
    if (response.statusCode === 200) {
      cache.applyFreshnessHeaders(reply, route);
      if (key !== null) {
        await cache.write(key, route, response).catch((err: Error) => {
          request.log.warn({ cause: err.message }, 'response cache write failed');
        });
      }
    } else {
      reply.header('Cache-Control', 'no-store');
    }
    return send(reply, response);
  };
}
