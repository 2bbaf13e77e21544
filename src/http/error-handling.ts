import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from '../domain/errors.js';
import { DomainError, errorBody, HttpError, statusOf } from './errors.js';
import { validationDetails } from './validation.js';

/** Messages for the request-parsing failures fastify reports itself; none reveals internals. */
function frameworkError(err: FastifyError, bodyLimit: number): DomainError | null {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HttpError('payload_too_large', `Request body exceeds the limit of ${bodyLimit} bytes`);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new HttpError('invalid_request', 'Request body is not valid JSON');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new HttpError('invalid_request', 'Request body is empty but Content-Type is application/json');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HttpError('unsupported_media_type', 'Unsupported Content-Type; send application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new HttpError('invalid_request', 'Content-Length does not match the request body');
    default:
      break;
  }
  // Other fastify client errors (4xx) carry messages written for callers and their own status.
  if (err.code?.startsWith('FST_') && typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return new HttpError(err.statusCode === 404 ? 'not_found' : 'invalid_request', err.message, { statusCode: err.statusCode });
  }
  return null;
}

function toDomainError(err: FastifyError, bodyLimit: number): DomainError | null {
  if (err instanceof DomainError) return err;
  if (Array.isArray(err.validation)) {
    const context = err.validationContext ?? 'request';
    return new HttpError('invalid_request', `The request ${context} is invalid`, {
      details: validationDetails(context, err.validation),
    });
  }
  return frameworkError(err, bodyLimit);
}

function sendError(request: FastifyRequest, reply: FastifyReply, err: DomainError): FastifyReply {
  if (err instanceof HttpError) for (const [name, value] of Object.entries(err.headers ?? {})) reply.header(name, value);
  return reply.code(statusOf(err)).send(errorBody(err, request.id));
}

const UNEXPECTED = 'The request failed unexpectedly';

/**
 * What a caller is told of a failure on the service's side (5xx). Those messages are written for
 * the operator (a file, a database, a cause), so the caller gets the code, this sentence and the
 * request id, and the log keeps the rest under that id.
 */
const SERVER_SIDE_MESSAGES: Partial<Record<ErrorCode, string>> = {
  state_corrupt: 'The service’s stored state could not be read or written safely',
  invalid_config: 'The service is not configured to answer this request',
  unavailable: 'A store the service depends on is unavailable; retry later',
};

function serverSideError(code: ErrorCode, requestId: string): HttpError {
  const sentence = SERVER_SIDE_MESSAGES[code] ?? UNEXPECTED;
  return new HttpError(code, `${sentence}; quote request id ${requestId} when reporting it`);
}

/**
 * The answer to a failure fastify's router meets before any route runs (`frameworkErrors`): a
 * path that is not valid percent-encoded UTF-8, a path segment over the router's limit. No route
 * context exists yet, so the server's onSend hook does not run: the request id and the cache
 * header are set here.
 */
export function answerFrameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('X-Request-Id', request.id).header('Cache-Control', 'no-store');
  switch (err.code) {
    case 'FST_ERR_BAD_URL':
      return sendError(request, reply, new HttpError('invalid_request', 'The request path is not valid percent-encoded UTF-8'));
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return sendError(request, reply, new HttpError('uri_too_long', 'A segment of the request path is longer than the service accepts'));
    default:
      request.log.error({ err }, 'request failed before routing');
      return sendError(request, reply, serverSideError('internal_error', request.id));
  }
}

/**
 * Every error leaves in one shape, `{"error":{"code","message","requestId","details"?}}`.
 * A client's error (4xx) carries its own message. A failure on the service's side (5xx) is logged
 * with its stack under the request id, and the caller learns only its code (`internal_error` for
 * anything without one) and the request id; an HttpError of the edge (the console not built) is
 * the exception, its message is written for callers.
 */
export function registerErrorHandling(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const known = toDomainError(err, bodyLimit);
    if (known !== null && (known instanceof HttpError || statusOf(known) < 500)) return sendError(request, reply, known);
    request.log.error({ err }, 'request failed');
    return sendError(request, reply, serverSideError(known?.code ?? 'internal_error', request.id));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    return sendError(request, reply, new HttpError('not_found', `No route matches ${request.method} ${path}`));
  });
}
