import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProgrammingError } from '../domain/errors.js';
import type { CachedResponse, ResponseCache } from './response-cache.js';
import { isProtectedRoute, type RouteContext, type RouteReply, type RouteSpec } from './route-spec.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

function contextOf(request: FastifyRequest): RouteContext {
  return {
    identity: request.identity,
    requestId: request.id,
    traceparent: request.traceSpan?.traceparent ?? null,
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
function invoke(route: RouteSpec, ctx: RouteContext): RouteReply | Promise<RouteReply> {
  if (!isProtectedRoute(route)) return route.handler({ ...ctx, identity: null });
  const { identity } = ctx;
  if (identity === null) throw new ProgrammingError(`protected route ${route.method} ${route.path} reached its handler without an identity`);
  return route.handler({ ...ctx, identity });
}

/** Serializes a handler's reply once; the same text is sent and, for cached reads, stored. */
function render(result: RouteReply): CachedResponse {
  const statusCode = result.statusCode ?? 200;
  const empty = statusCode === 204 || (result.json === undefined && result.body === undefined);
  return {
    statusCode,
    contentType: JSON_TYPE,
    headers: result.headers ?? NO_HEADERS,
    body: empty ? '' : (result.json ?? JSON.stringify(result.body)),
  };
}

/**
 * Sends a rendered response. Returns undefined when the send completed at once (the usual case:
 * the server's onSend hooks are synchronous), so fastify has nothing left to wait for; otherwise
 * the reply, which fastify awaits until the response has ended.
 */
function send(reply: FastifyReply, response: CachedResponse): FastifyReply | undefined {
  reply.code(response.statusCode);
  for (const name in response.headers) reply.header(name, response.headers[name]);
  if (response.body.length === 0) reply.send();
  else reply.type(response.contentType).send(response.body);
  return reply.sent ? undefined : reply;
}

function respond(reply: FastifyReply, result: RouteReply): FastifyReply | undefined {
  if (result.takeover) return takeOver(reply, result, result.takeover);
  return result.stream ? sendStream(reply, result, result.stream) : send(reply, render(result));
}

/**
 * Hands the raw response to a long-lived stream. Fastify writes nothing more for a hijacked
 * reply, its onSend hook included, so the head carries here what that hook and the access hooks
 * would have put on it.
 */
function takeOver(reply: FastifyReply, result: RouteReply, takeover: NonNullable<RouteReply['takeover']>): undefined {
  reply.hijack();
  const response = reply.raw;
  const headers: Record<string, string | number | string[]> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name.toLowerCase()] = value;
  headers['content-type'] = takeover.contentType;
  headers['cache-control'] = 'no-store';
  headers['x-request-id'] = reply.request.id;
  const statusCode = result.statusCode ?? 200;
  // A hijacked reply has no onResponse: the request's span ends when the stream does.
  response.once('close', () => reply.request.traceSpan?.end(statusCode));
  response.writeHead(statusCode, headers);
  if (reply.request.method === 'HEAD') {
    response.end();
    takeover.abandon();
    return undefined;
  }
  // The head goes out now, before the first event: a client knows at once the stream is open.
  response.flushHeaders();
  takeover.start(response);
  return undefined;
}

const isPromise = (value: RouteReply | Promise<RouteReply>): value is Promise<RouteReply> =>
  typeof (value as Promise<RouteReply>).then === 'function';

function sendStream(reply: FastifyReply, result: RouteReply, stream: NonNullable<RouteReply['stream']>): FastifyReply {
  reply.code(result.statusCode ?? 200);
  for (const [name, value] of Object.entries(result.headers ?? {})) reply.header(name, value);
  // HEAD gets the GET's status and headers without the export being produced: the chunks are
  // never iterated (they are made as they are read), and an empty stream keeps the framing.
  const body = reply.request.method === 'HEAD' ? Readable.from([]) : Readable.from(stream.chunks);
  return reply.type(stream.contentType).send(body);
}

/**
 * The fastify handler of one route: builds the RouteContext (validated input plus the identity
 * from authentication) and calls the table's handler. For cached routes it looks the response up
 * first (this runs after authentication and rate limiting, which are onRequest hooks) and stores
 * 200s. A cache that cannot be reached is skipped, not fatal: the read is served uncached.
 */
export function createRouteHandler(route: RouteSpec, cache: ResponseCache) {
  if (!route.cache) {
    // Cache-Control: no-store comes from the server's onSend hook, as for every uncached answer.
    // A handler that answers synchronously (GET /health) is sent without a promise in between.
    return function handleRoute(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined | Promise<FastifyReply | undefined> {
      const result = invoke(route, contextOf(request));
      if (isPromise(result)) return result.then((r) => respond(reply, r));
      return respond(reply, result);
    };
  }

  return async function handleCachedRoute(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const ctx = contextOf(request);
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

    const rendered = render(await invoke(route, ctx));
    reply.header('X-Svc-Cache', 'miss').header('X-Svc-Cache-Store', cache.storeLabel);
    // Encoded once: the bytes sent now are the bytes every hit sends.
    const response = rendered.statusCode === 200 && key !== null ? { ...rendered, body: Buffer.from(rendered.body) } : rendered;
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
