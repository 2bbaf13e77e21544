import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorBody } from './errors.js';
import { validationDetails } from './validation.js';

/** Messages for the request-parsing failures fastify reports itself; none reveals internals. */
function frameworkError(err: FastifyError, bodyLimit: number): AppError | null {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(413, 'payload_too_large', `Request body exceeds the limit of ${bodyLimit} bytes`);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError(400, 'invalid_request', 'Request body is not valid JSON');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError(400, 'invalid_request', 'Request body is empty but Content-Type is application/json');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(415, 'invalid_request', 'Unsupported Content-Type; send application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError(400, 'invalid_request', 'Content-Length does not match the request body');
    default:
      break;
  }
  // Other fastify client errors (4xx) carry messages written for callers.
  if (err.code?.startsWith('FST_') && typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return new AppError(err.statusCode, err.statusCode === 404 ? 'not_found' : 'invalid_request', err.message);
  }
  return null;
}

function toAppError(err: FastifyError, bodyLimit: number): AppError | null {
  if (err instanceof AppError) return err;
  if (Array.isArray(err.validation)) {
    const context = err.validationContext ?? 'request';
    return new AppError(
      400,
      'invalid_request',
      `The request ${context} is invalid`,
      validationDetails(context, err.validation),
    );
  }
  return frameworkError(err, bodyLimit);
}

function sendError(request: FastifyRequest, reply: FastifyReply, err: AppError): FastifyReply {
  for (const [name, value] of Object.entries(err.headers ?? {})) reply.header(name, value);
  return reply.code(err.statusCode).send(errorBody(err, request.id));
}

/**
 * Every error leaves in one shape, `{"error":{"code","message","requestId","details"?}}`.
 * Unexpected errors become 500 `internal_error`: the caller learns only the request id, the log
 * keeps the stack under that id.
 */
export function registerErrorHandling(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const known = toAppError(err, bodyLimit);
    if (known) return sendError(request, reply, known);
    request.log.error({ err }, 'request failed');
    return sendError(
      request,
      reply,
      new AppError(500, 'internal_error', `The request failed unexpectedly; quote request id ${request.id} when reporting it`),
    );
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    return sendError(request, reply, new AppError(404, 'not_found', `No route matches ${request.method} ${path}`));
  });
}
