/**
 * The one catalogue of error codes. The domain throws a `DomainError` carrying a code and a
 * human message; only `src/http/` turns a code into a status (src/http/errors.ts), so a module
 * that admits or approves work never decides what a client's reply looks like.
 *
 * The rule: a failure a client or an operator can meet (an HTTP answer, a start-up `fatal:`
 * line, a migrate command's refusal, a health or probe detail, a store refusing corrupt state)
 * carries one of these codes. A failure that can only mean the service's own code is wrong is a
 * `ProgrammingError` (below), which has no code. docs/http.md lists the codes.
 */
export const ERROR_CODES = [
  'invalid_request',
  'unsupported_media_type',
  'task_type_internal',
  'reserved_field',
  'scope_outside_workspace',
  'unauthorized',
  'forbidden',
  'origin_not_allowed',
  'not_found',
  'method_not_allowed',
  'conflict',
  'payload_too_large',
  'uri_too_long',
  'headers_too_large',
  'request_timeout',
  'rate_limited',
  'invalid_signature',
  'internal_error',
  /** The operator's configuration (environment, config file, agent manifests, state target) is unusable. */
  'invalid_config',
  /** Stored state is damaged or would be: the store refuses to read it, or to write a record it could not read back. */
  'state_corrupt',
  'unavailable',
  /** An outside system the service called (a feed, a notification target, a provider) answered something unusable. */
  'upstream_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * One problem of a rejected input. `path` is a JSON Pointer (RFC 6901) into the part of the
 * request named by its first segment: `/body/payload/content`, `/querystring/limit`,
 * `/params/runId`. One format everywhere, so a client can point at the field.
 */
export interface ErrorDetail {
  path: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    /** `cause`: the lower-level failure behind this one, kept for the log. */
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'DomainError';
  }
}

export const invalidRequest = (message: string, details?: ErrorDetail[]) => new DomainError('invalid_request', message, details);
export const notFound = (what: string) => new DomainError('not_found', `${what} was not found`);
export const conflict = (message: string, details?: unknown) => new DomainError('conflict', message, details);

/** JSON Pointer escaping of one path segment (RFC 6901). */
export function pointerSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A JSON Pointer from segments: `pointer('body', 'payload', 'a/b')` is `/body/payload/a~1b`. */
export function pointer(...segments: string[]): string {
  return segments.map((s) => `/${pointerSegment(s)}`).join('');
}

/**
 * A broken assumption inside the service: a bug, never a client's or an operator's mistake
 * (those are `DomainError`s with a catalogue code). It carries no code, so the HTTP layer
 * answers it as 500 `internal_error` and its message goes only to the log.
 */
export class ProgrammingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProgrammingError';
  }
}
