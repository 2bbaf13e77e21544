import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, HTTPMethods } from 'fastify';
import { HttpError } from './errors.js';

/**
 * Methods never answered 405: OPTIONS belongs to CORS (an accepted preflight is answered by the
 * CORS hook, any other OPTIONS is a 404 there, see cors.ts).
 */
const NEVER_REFUSED = new Set(['OPTIONS']);

/** The methods a path answers, in the order the Allow header lists them: HEAD wherever GET is. */
export function allowedMethods(served: Iterable<string>): string[] {
  const allowed = new Set(served);
  if (allowed.has('GET')) allowed.add('HEAD');
  return [...allowed].sort();
}

/**
 * 405 `method_not_allowed` with an `Allow` header for a known path asked with a method it does not
 * serve, instead of a 404 that would say the path does not exist. For each path the router gets
 * one extra route carrying every other method, so the router itself decides "known path, other
 * method" with its own matching (parameters, wildcards), and the 404 handler keeps meaning
 * "no such path". The refusal is an onRequest hook: no body is read and no access rule runs for a
 * request that cannot be served (the global hooks, CORS among them, still run before it).
 *
 * `servedByPath`: path pattern (fastify syntax) → the methods its routes serve.
 */
export function registerMethodNotAllowed(app: FastifyInstance, servedByPath: ReadonlyMap<string, readonly string[]>): void {
  for (const [path, served] of servedByPath) {
    const allowed = allowedMethods(served);
    const allow = allowed.join(', ');
    const refused = app.supportedMethods.filter((method) => !allowed.includes(method) && !NEVER_REFUSED.has(method));
    if (refused.length === 0) continue;
    const refusal = (request: FastifyRequest) =>
      new HttpError('method_not_allowed', `${request.method} is not allowed on ${request.url.split('?')[0]}; use ${allow}`, {
        headers: { Allow: allow },
      });
    app.route({
      method: refused as HTTPMethods[],
      url: path,
      // HEAD is listed explicitly where it is refused; no implicit twin of this route.
      exposeHeadRoute: false,
      onRequest(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
        done(refusal(request));
      },
      // Not reached (the hook answers first); kept equal so the route can only ever refuse.
      handler(request) {
        throw refusal(request);
      },
    });
  }
}
