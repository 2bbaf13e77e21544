/** Error codes of the documented error body `{"error":{"code","message","requestId","details"?}}`. */
export type ErrorCode =
  | 'invalid_request'
  | 'task_type_internal'
  | 'reserved_field'
  | 'scope_outside_workspace'
  | 'unauthorized'
  | 'forbidden'
  | 'origin_not_allowed'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'rate_limited'
  | 'invalid_signature'
  | 'internal_error';

export interface ErrorDetail {
  path: string;
  message: string;
}

/** An error that maps to one documented HTTP response. Anything else becomes 500 internal_error. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (message: string, details?: ErrorDetail[]) =>
  new AppError(400, 'invalid_request', message, details);
export const notFound = (what: string) => new AppError(404, 'not_found', `${what} was not found`);
export const conflict = (message: string, details?: unknown) => new AppError(409, 'conflict', message, details);

export interface ErrorBody {
  error: { code: ErrorCode; message: string; requestId: string; details?: unknown };
}

export function errorBody(err: AppError, requestId: string): ErrorBody {
  const body: ErrorBody = { error: { code: err.code, message: err.message, requestId } };
  if (err.details !== undefined) body.error.details = err.details;
  return body;
}
