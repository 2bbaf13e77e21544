import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { CorsConfig } from '../config/types.js';
import { HttpError } from './errors.js';
import { appendVary } from './response-cache.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the CORS hook when it accepted a preflight; the OPTIONS route answers 404 otherwise. */
    corsPreflight: boolean;
  }
}

const normalizeOrigin = (origin: string) => origin.trim().replace(/\/+$/, '').toLowerCase();

/** The service's own origin as the caller addressed it (scheme + Host header). */
function ownOrigin(request: FastifyRequest): string {
  return normalizeOrigin(`${request.protocol}://${request.host}`);
}

/** Vary: Origin on every response (what a cache keys on); set outright when nothing else named a field yet. */
function varyOnOrigin(reply: FastifyReply): void {
  if (reply.hasHeader('vary')) appendVary(reply, 'Origin');
  else reply.header('Vary', 'Origin');
}

/**
 * CORS, deny by default. No Origin header: not a browser cross-origin request, nothing to decide.
 * The service's own origin (the console it serves): always allowed. Anything else must be listed
 * exactly in the allowlist; `*` in the list matches nothing, so a wildcard is never answered.
 * A refused origin gets 403 `origin_not_allowed`, for preflights and actual requests alike,
 * before authentication or rate limiting runs.
 *
 * One onRequest hook in callback style: a request without Origin (curl, other services, probes
 * of /health) costs a header lookup and the Vary header, nothing else. The header values are
 * joined once here, not per request.
 */
export function registerCors(app: FastifyInstance, cors: CorsConfig): void {
  const allowed = new Set(cors.allowedOrigins.map(normalizeOrigin).filter((o) => o !== '*'));
  const exposed = cors.exposedHeaders.join(', ');
  const methods = cors.allowedMethods.join(', ');
  const headers = cors.allowedHeaders.join(', ');
  const maxAge = cors.maxAgeSeconds === null ? null : String(cors.maxAgeSeconds);

  app.decorateRequest('corsPreflight', false);
  app.addHook('onRequest', function handleCors(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    varyOnOrigin(reply);
    const origin = request.headers.origin;
    if (origin === undefined) {
      done();
      return;
    }
    const normalized = normalizeOrigin(origin);
    if (normalized !== ownOrigin(request) && !allowed.has(normalized)) {
      done(new HttpError('origin_not_allowed', `Origin ${origin} is not allowed to call this service`));
      return;
    }
    reply.header('Access-Control-Allow-Origin', origin);
    if (cors.allowCredentials) reply.header('Access-Control-Allow-Credentials', 'true');
    reply.header('Access-Control-Expose-Headers', exposed);
    if (request.raw.method !== 'OPTIONS') {
      done();
      return;
    }
    // A preflight is answered here, before any limiter or key check: the browser sends none.
    request.corsPreflight = true;
    reply.header('Access-Control-Allow-Methods', methods);
    reply.header('Access-Control-Allow-Headers', headers);
    if (maxAge !== null) reply.header('Access-Control-Max-Age', maxAge);
    reply.code(204).header('Content-Length', '0').send();
  });

  // Lets the router accept OPTIONS on every path; an accepted preflight never gets this far.
  app.options('*', (request, reply) => {
    if (!request.corsPreflight) {
      reply.callNotFound();
      return;
    }
    reply.send();
  });
}
