import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { HttpError } from './errors.js';

/** True when every `%` of `text` starts an escape and the escapes decode as UTF-8. */
function isPercentEncoded(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Refusals of a request that reached fastify but is not one the routes can read, answered before
 * any other hook:
 * - HTTP/1.1 without a Host header (RFC 9112 §3.2). Node's own check answers it with a bare 400
 *   and no body, so the server turns that check off (`requireHostHeader: false`) and refuses here.
 * - a query string that is not valid percent-encoded UTF-8. The query parser keeps such a value
 *   as it was sent, so a filter would silently match nothing; the path gets the same refusal from
 *   the router (`frameworkErrors`).
 *
 * One callback-style hook; a request without `?%` in its URL costs a header lookup and an index scan.
 */
export function registerRequestGuard(app: FastifyInstance): void {
  app.addHook('onRequest', function guardRequest(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
    const raw = request.raw;
    if (raw.headers.host === undefined && raw.httpVersionMajor === 1 && raw.httpVersionMinor === 1) {
      done(new HttpError('invalid_request', 'An HTTP/1.1 request must carry a Host header'));
      return;
    }
    const url = raw.url ?? '';
    const query = url.indexOf('?');
    if (query !== -1 && url.includes('%', query) && !isPercentEncoded(url.slice(query + 1))) {
      done(
        new HttpError('invalid_request', 'The query string is not valid percent-encoded UTF-8', {
          details: [{ path: '/querystring', message: 'is not valid percent-encoded UTF-8' }],
        }),
      );
      return;
    }
    done();
  });
}
