/**
 * What a call to the service can fail with, as the client library reports it. Each carries the
 * service's error code and request id when the service answered, so a command line or a chat
 * reply can say exactly what went wrong and which request to look up in the service's log.
 */
export class OrchApiError extends Error {
  override readonly name = 'OrchApiError';
  constructor(
    readonly status: number,
    /** The service's error code (`not_found`, `forbidden`, `invalid_request`, ...). */
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly details: unknown = undefined,
  ) {
    super(message);
  }
}

/** The service could not be reached (refused, reset, timed out) after the retries allowed. */
export class OrchNetworkError extends Error {
  override readonly name = 'OrchNetworkError';
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`cannot reach ${url}: ${reason}`);
  }
}

/** One line for a person: code, message and the request id to look up. */
export function describeClientError(err: unknown): string {
  if (err instanceof OrchApiError) {
    const request = err.requestId ? ` (request ${err.requestId})` : '';
    return `${err.code}: ${err.message}${request}`;
  }
  if (err instanceof OrchNetworkError) return err.message;
  return err instanceof Error ? err.message : String(err);
}
