import { DomainError, type ErrorCode } from '../domain/errors.js';

export { DomainError, type ErrorCode, type ErrorDetail } from '../domain/errors.js';

/** The one mapping from an error code to its HTTP status. */
export const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid_request: 400,
  task_type_internal: 400,
  reserved_field: 400,
  scope_outside_workspace: 400,
  unauthorized: 401,
  invalid_signature: 401,
  forbidden: 403,
  origin_not_allowed: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  invalid_config: 500,
  state_corrupt: 500,
  unavailable: 503,
  upstream_error: 502,
};

/**
 * An error only the HTTP edge raises (authentication, limits, CORS, request parsing). It may
 * carry response headers (`WWW-Authenticate`, `Retry-After`); its status still comes from
 * HTTP_STATUS, except for a framework client error whose status fastify already decided.
 */
export class HttpError extends DomainError {
  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: unknown; headers?: Record<string, string>; statusCode?: number } = {},
  ) {
    super(code, message, options.details);
    this.name = 'HttpError';
    this.headers = options.headers;
    this.statusOverride = options.statusCode;
  }
  readonly headers?: Record<string, string>;
  readonly statusOverride?: number;
}

export function statusOf(err: DomainError): number {
  return (err instanceof HttpError ? err.statusOverride : undefined) ?? HTTP_STATUS[err.code];
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; requestId: string; details?: unknown };
}

export function errorBody(err: DomainError, requestId: string): ErrorBody {
  const body: ErrorBody = { error: { code: err.code, message: err.message, requestId } };
  if (err.details !== undefined) body.error.details = err.details;
  return body;
}
