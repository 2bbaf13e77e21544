import { randomUUID } from 'node:crypto';
import { maxHeaderSize, STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { errorBody, HttpError, statusOf } from './errors.js';
import { requestIdFor } from './request-id.js';

const FRAMING = 'The request body’s framing (Content-Length, Transfer-Encoding, chunks) is malformed';

/**
 * What Node's HTTP parser refused, by its error code (llhttp's `HPE_*`), as the service's error.
 * Anything not listed is a request that is not valid HTTP/1.1.
 */
const REFUSALS: Readonly<Record<string, () => HttpError>> = {
  HPE_HEADER_OVERFLOW: () =>
    new HttpError('headers_too_large', `The request line and headers together exceed ${maxHeaderSize} bytes`),
  ERR_HTTP_REQUEST_TIMEOUT: () => new HttpError('request_timeout', 'The request did not arrive completely in time'),
  HPE_INVALID_METHOD: () => new HttpError('invalid_request', 'The request method is not a valid HTTP method'),
  HPE_INVALID_URL: () => new HttpError('invalid_request', 'The request target is not a valid URL'),
  HPE_INVALID_VERSION: () => new HttpError('invalid_request', 'The HTTP version is not supported; send HTTP/1.1'),
  HPE_INVALID_HEADER_TOKEN: () => new HttpError('invalid_request', 'A request header is malformed'),
  HPE_INVALID_CONTENT_LENGTH: () => new HttpError('invalid_request', FRAMING),
  HPE_UNEXPECTED_CONTENT_LENGTH: () => new HttpError('invalid_request', FRAMING),
  HPE_INVALID_TRANSFER_ENCODING: () => new HttpError('invalid_request', FRAMING),
  HPE_INVALID_CHUNK_SIZE: () => new HttpError('invalid_request', FRAMING),
  HPE_CHUNK_EXTENSIONS_OVERFLOW: () => new HttpError('invalid_request', FRAMING),
};

function refusalOf(code: string | undefined): HttpError {
  const refusal = code === undefined ? undefined : REFUSALS[code];
  return refusal ? refusal() : new HttpError('invalid_request', 'The request is not valid HTTP/1.1');
}

/** The raw response: fastify has no request or reply for a request Node could not parse. */
function rawResponse(refusal: HttpError, requestId: string): string {
  const status = statusOf(refusal);
  const body = JSON.stringify(errorBody(refusal, requestId));
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    'Cache-Control: no-store\r\n' +
    Object.entries(refusal.headers ?? {})
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    'Connection: close\r\n' +
    '\r\n' +
    body
  );
}

/** True while a response of an earlier request on this connection is being written. */
function responseInProgress(socket: Socket): boolean {
  const current = (socket as Socket & { _httpMessage?: { headersSent: boolean } | null })._httpMessage;
  return current != null && current.headersSent;
}

/**
 * Fastify's `clientErrorHandler`: a request Node's parser refuses before fastify sees it
 * (malformed request line, bad header, Transfer-Encoding or Content-Length oddities, headers over
 * the limit, a request that never completes) is answered in the error shape with a new request id
 * (its own X-Request-Id header could not be read), then the connection is closed. As Node does,
 * nothing is written when the peer is gone or a response is already under way on the socket, so
 * the peer never receives a response interleaved with another.
 */
export function createClientErrorHandler(log: Pick<FastifyBaseLogger, 'debug'>) {
  return function answerClientError(err: Error & { code?: string }, socket: Socket): void {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const requestId = randomUUID();
    const refusal = refusalOf(err.code);
    // Malformed traffic is the client's, not the service's: kept out of the log at normal levels.
    log.debug({ reqId: requestId, code: err.code, cause: err.message }, 'request refused by the HTTP parser');
    if (!socket.writable || responseInProgress(socket)) {
      socket.destroy();
      return;
    }
    socket.end(rawResponse(refusal, requestId), () => socket.destroy());
  };
}

/**
 * The server's `connect` listener. Node hands a CONNECT request (a proxy tunnel) to this event
 * instead of the router, and without a listener closes the connection without a word. This
 * service is no proxy: 405 in the error shape, with an empty Allow (the target is an authority,
 * not a resource, and allows no method).
 */
export function answerConnect(request: IncomingMessage, socket: Socket): void {
  const refusal = new HttpError('method_not_allowed', 'CONNECT is not served: this service is not a proxy', { headers: { Allow: '' } });
  socket.on('error', () => socket.destroy());
  socket.end(rawResponse(refusal, requestIdFor(request)), () => socket.destroy());
}
