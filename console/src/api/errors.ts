/** One problem of a rejected input, as the service reports it (`path` is a JSON Pointer). */
export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * A failed API call in the service's error envelope
 * (`{"error":{"code","message","requestId","details"?}}`), or the closest reading of a body that
 * is not one (a proxy page, an empty 502).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly details: ErrorDetail[],
    readonly retryAfterSeconds: number | null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const CODE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  429: 'rate_limited',
  503: 'unavailable',
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Validation details are a list of {path, message}; other `details` (a rate-limit record) are not field problems. */
function fieldDetails(value: unknown): ErrorDetail[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(isRecord)
    .filter((d) => typeof d.path === 'string' && typeof d.message === 'string')
    .map((d) => ({ path: d.path as string, message: d.message as string }));
}

function retryAfter(header: string | null): number | null {
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

/** Maps a non-2xx answer (status, parsed body, Retry-After header) to an ApiError. */
export function apiErrorFrom(status: number, body: unknown, retryAfterHeader: string | null = null): ApiError {
  const envelope = isRecord(body) && isRecord(body.error) ? body.error : null;
  const code =
    envelope && typeof envelope.code === 'string'
      ? envelope.code
      : (CODE_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'http_error'));
  const message = envelope && typeof envelope.message === 'string' ? envelope.message : `Request failed with HTTP ${status}`;
  const requestId = envelope && typeof envelope.requestId === 'string' ? envelope.requestId : null;
  return new ApiError(status, code, message, requestId, fieldDetails(envelope?.details), retryAfter(retryAfterHeader));
}

/** The bearer token is missing, unknown or expired: the session is over and the login screen returns. */
export const isSessionExpired = (err: unknown): boolean => err instanceof ApiError && err.status === 401 && err.code === 'unauthorized';

/** One line for an operator: status and code first, then the service's own sentence. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    const wait = err.retryAfterSeconds !== null ? ` Retry after ${err.retryAfterSeconds} s.` : '';
    return `HTTP ${err.status} ${err.code}: ${err.message}${wait}`;
  }
  if (err instanceof Error) return `Request failed: ${err.message}`;
  return 'Request failed';
}
