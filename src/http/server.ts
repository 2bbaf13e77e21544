import { join } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import { packageRoot } from '../config/package-root.js';
import type { Coordination } from '../coordination/types.js';
import type { Metrics } from '../metrics.js';
import { accessHooks } from './access-hooks.js';
import { createCredentialVerifier, createKeyVerifier, type CredentialChecker, type ScopeLookups } from './auth.js';
import { answerConnect, createClientErrorHandler } from './client-error.js';
import { registerCors } from './cors.js';
import { answerFrameworkError, registerErrorHandling } from './error-handling.js';
import { bodyBoundsError } from './json-body.js';
import { registerMethodNotAllowed } from './method-not-allowed.js';
import { CONSOLE_PATHS, registerOperatorConsole } from './operator-console.js';
import { registerRateLimits } from './rate-limits.js';
import { registerRequestGuard } from './request-guard.js';
import { requestIdFor } from './request-id.js';
import { requestLoggerFactory } from './request-logger.js';
import { ResponseCache } from './response-cache.js';
import { createRouteHandler } from './route-handler.js';
import type { RouteSpec } from './route-spec.js';
import { validatorCompiler } from './validation.js';
import { registerRequestTracing } from './request-tracing.js';
import type { ServiceTracer } from '../tracing/service-tracer.js';

export interface ServerDeps {
  config: AppConfig;
  coordination: Coordination;
  logger: Logger;
  metrics: Metrics;
  /** Time source for key expiry; the system clock unless a caller substitutes one. */
  clock?: Clock;
  /** The built operator console served at /operator; console/dist of the package unless given. */
  consoleDir?: string;
  /** False stores no response and answers every cached route as a miss (default true). */
  responseCacheEnabled?: boolean;
  /** A server span per request when tracing is on (docs/tracing.md); absent: off. */
  tracer?: ServiceTracer;
  /** Checks scoped tokens (src/tokens/); absent: the service accepts none. */
  tokens?: CredentialChecker;
  /** Checks approval links (src/tokens/approval-links.ts); absent: the service accepts none. */
  approvalLinks?: CredentialChecker;
  /** What a scoped token's scope check reads (a run's tags); absent: a `tag` token reads no single run. */
  scopeLookups?: ScopeLookups;
}

/** Metrics label for requests that matched no table route (unknown paths, 405s, CORS preflights). */
const UNMATCHED = 'unmatched';

/** Every response body is written as JSON.stringify writes it, whatever its documented schema. */
const serializerCompiler = () => (data: unknown) => JSON.stringify(data);

/**
 * The compilers as Fastify's schema controller builds them. Its types describe factories of
 * Ajv-shaped compilers; ours take the route schema Fastify passes either way.
 */
const OWN_COMPILERS = {
  buildValidator: () => validatorCompiler,
  buildSerializer: () => serializerCompiler,
} as unknown as NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/**
 * A signed route (the alert webhook) verifies an HMAC over the body exactly as sent, so its JSON
 * body reaches the handler as the raw text, unparsed and unvalidated: an unsigned request learns
 * nothing about the body it would need. Every other route keeps fastify's own JSON parser, and
 * what it parsed is refused past the depth and size bounds (json-body.ts) before validation.
 */
function keepRawBodyOfSignedRoutes(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // Bodies are JSON only: without fastify's text/plain parser a text body is 415, as every other type.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if ((request.routeOptions.config as { rawBody?: boolean }).rawBody) return done(null, text);
    return parseJson(request, text, (err, parsed) => (err ? done(err) : done(bodyBoundsError(parsed), parsed)));
  });
}

/** Each path of the table (and of the console) with the methods its routes serve. */
function servedMethodsByPath(routes: ReadonlyArray<{ method: string; path: string }>): Map<string, string[]> {
  const served = new Map<string, string[]>();
  for (const { method, path } of routes) served.set(path, [...(served.get(path) ?? []), method]);
  return served;
}

/**
 * Builds the HTTP server from the route table; the caller calls listen(). Every rule of the
 * security envelope (request id, CORS, abuse guard, authentication, role, rate limit, validation,
 * response cache, error shape, metrics) is derived from the RouteSpec entries, so a route's access
 * is written once, in the table. See docs/http.md for the order and the reasons.
 */
export async function buildServer(deps: ServerDeps, routes: RouteSpec[]): Promise<FastifyInstance> {
  const { config, coordination, logger, metrics } = deps;
  const app = Fastify({
    loggerInstance: logger,
    // request.log / reply.log: a pino child made only when a request writes a line (request-logger.ts).
    childLoggerFactory: requestLoggerFactory,
    genReqId: requestIdFor,
    requestIdHeader: false,
    bodyLimit: config.maxBodyBytes,
    // Off by default: X-Forwarded-For is ignored unless the operator says a proxy sets it.
    trustProxy: config.trustProxy,
    // Every GET answers HEAD (uptime monitors probe with it): the same route with its access
    // hooks, limits and handler, the body left out. The OpenAPI document lists the GET only.
    exposeHeadRoutes: true,
    // Path parameters are bounded by each route's schema (a run id may be 400 characters); the
    // router refuses segments over this with 414 `uri_too_long` (answerFrameworkError).
    routerOptions: { maxParamLength: 2000 },
    return503OnClosing: true,
    // Requests refused before any route runs still answer in the error shape with X-Request-Id:
    // a path that is not valid percent-encoding (router), a request Node cannot parse (socket).
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: createClientErrorHandler(logger),
    // Node's own missing-Host refusal is a bare 400; request-guard.ts refuses it in shape instead.
    http: { requireHostHeader: false },
    // Requests are validated by TypeBox and responses written with JSON.stringify (response
    // schemas document responses, they never filter fields out of them). Given as the compilers'
    // factories, Fastify never loads its own (Ajv, fast-json-stringify) at start.
    schemaController: { compilersFactory: OWN_COMPILERS },
    // Typed as the default instance: callers need listen/close/server, not pino's logger generics.
  }) as unknown as FastifyInstance;

  app.server.on('connect', answerConnect);
  // First of the hooks: the request span covers every check the request then crosses.
  registerRequestTracing(app, deps.tracer);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('identity', null);
  registerErrorHandling(app, config.maxBodyBytes);
  keepRawBodyOfSignedRoutes(app);

  registerRequestGuard(app);
  registerCors(app, config.cors);
  const limit = registerRateLimits(config, coordination);

  // Hooks every request crosses are in callback style: no promise and no microtask per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('X-Request-Id', request.id);
    if (!reply.hasHeader('cache-control')) reply.header('Cache-Control', 'no-store');
    done(null, payload);
  });

  const tablePaths = new Set(routes.map((r) => r.path));
  app.addHook('onResponse', (request, reply, done) => {
    const pattern = request.routeOptions.url;
    // A 405 matched a table path with a method it does not serve: counted like an unknown path,
    // so arbitrary methods cannot multiply the series of a route.
    const route = pattern !== undefined && reply.statusCode !== 405 && tablePaths.has(pattern) ? pattern : UNMATCHED;
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  const verify = createCredentialVerifier(createKeyVerifier(config.apiKeys, deps.clock ?? systemClock), {
    tokens: deps.tokens,
    links: deps.approvalLinks,
  });
  const cache = new ResponseCache(coordination, config.cache, deps.responseCacheEnabled ?? true);
  for (const route of routes) {
    app.route({
      method: route.method,
      url: route.path,
      schema: {
        ...(route.schema.querystring ? { querystring: route.schema.querystring } : {}),
        ...(route.schema.params ? { params: route.schema.params } : {}),
        // A signed route checks its signature before anything else reads the body (see below).
        ...(route.schema.body && route.access.kind !== 'signed' ? { body: route.schema.body } : {}),
      },
      config: { rawBody: route.access.kind === 'signed' } as Record<string, unknown>,
      onRequest: accessHooks(route, limit, verify, deps.scopeLookups),
      handler: createRouteHandler(route, cache),
    });
  }
  await registerOperatorConsole(app, deps.consoleDir ?? join(packageRoot(), 'console', 'dist'), limit('abuse-guard'));
  registerMethodNotAllowed(app, servedMethodsByPath([...routes, ...CONSOLE_PATHS]));
  return app;
}
