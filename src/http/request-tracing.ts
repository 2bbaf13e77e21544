import type { FastifyInstance } from 'fastify';
import type { RequestSpan, ServiceTracer } from '../tracing/service-tracer.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request span's trace context (W3C traceparent); null when tracing is off. */
    traceparent: string | null;
    /** The open request span; null when tracing is off. */
    traceSpan: RequestSpan | null;
  }
}

/**
 * One server span per request, from the first hook to the response, child of the caller's
 * `traceparent` header when it sends one. The span's context reaches the route handler
 * (RouteContext.traceparent), which hands it to the domain (the trigger's admission). With
 * tracing off no hook is added: requests pay nothing. A response taken over by a long-lived
 * stream (server-sent events) has no onResponse, so its span is never ended nor exported.
 */
export function registerRequestTracing(app: FastifyInstance, tracer: ServiceTracer | undefined): void {
  app.decorateRequest('traceparent', null);
  app.decorateRequest('traceSpan', null);
  if (!tracer?.enabled) return;
  app.addHook('onRequest', (request, _reply, done) => {
    const incoming = request.headers.traceparent;
    const span = tracer.startRequest(request.method, request.routeOptions.url, typeof incoming === 'string' ? incoming : undefined);
    request.traceSpan = span;
    request.traceparent = span.traceparent;
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    request.traceSpan?.end(reply.statusCode);
    request.traceSpan = null;
    done();
  });
}
