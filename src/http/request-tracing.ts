import type { FastifyInstance } from 'fastify';
import type { RequestSpan, ServiceTracer } from '../tracing/service-tracer.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The open request span (its `traceparent` is the request's trace context); null when tracing is off. */
    traceSpan: RequestSpan | null;
  }
}

/**
 * One server span per request, from the first hook to the response, child of the caller's
 * `traceparent` header when it sends one. The span's context reaches the route handler
 * (RouteContext.traceparent), which hands it to the domain (the trigger's admission). With
 * tracing off no hook is added: requests pay nothing. A response taken over by a long-lived
 * stream (server-sent events) has no onResponse: its span ends when the stream closes
 * (route-handler.ts, takeOver).
 */
export function registerRequestTracing(app: FastifyInstance, tracer: ServiceTracer | undefined): void {
  app.decorateRequest('traceSpan', null);
  if (!tracer?.enabled) return;
  app.addHook('onRequest', (request, _reply, done) => {
    const incoming = request.headers.traceparent;
    request.traceSpan = tracer.startRequest(request.method, request.routeOptions.url, typeof incoming === 'string' ? incoming : undefined);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    request.traceSpan?.end(reply.statusCode);
    done();
  });
}
