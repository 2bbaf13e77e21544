/**
 * What the handlers that reach the network (feeds, the digest target) share on top of the
 * guarded fetch (src/net/guarded-fetch.ts): their limits, and how a fetch that gave no response
 * is said in a result.
 */
import { DomainError } from '../../domain/errors.js';
import { OutboundRefusal } from '../../net/fetch-function.js';
import type { GuardedOutcome, OutboundLimits } from '../../net/guarded-fetch.js';

export const OUTBOUND_TIMEOUT_MS = 10_000;
const OUTBOUND_MAX_REDIRECTS = 5;

/** One handler fetch: 10 s for everything (lookups, redirects, body), at most `maxBytes` of body. */
export function outboundLimits(maxBytes: number): OutboundLimits {
  return { maxBytes, timeoutMs: OUTBOUND_TIMEOUT_MS, maxRedirects: OUTBOUND_MAX_REDIRECTS };
}

/**
 * The response of a guarded fetch, or the error saying why there is none: a refusal (naming the
 * address kind and the setting that would allow it, and for a redirect the hop as `hopName`
 * shows it) or the network failure itself.
 */
export function responseOf(outcome: GuardedOutcome, hopName: (url: string) => string): Response {
  if (outcome.kind === 'response') return outcome.response;
  if (outcome.kind === 'failed') throw outcome.error;
  const hop = outcome.redirects.at(-1);
  throw new OutboundRefusal(hop === undefined ? `refused: ${outcome.reason}` : `redirect to ${hopName(hop)} refused: ${outcome.reason}`);
}

/**
 * A one-line cause for a failed request: the service's own words for a refusal or a limit, the
 * system code (ECONNREFUSED, ENOTFOUND, a TLS problem) for a network failure, which is what an
 * operator needs to see.
 */
export function describeFetchError(err: unknown, timeoutMs: number = OUTBOUND_TIMEOUT_MS): string {
  if (err instanceof DomainError) return err.message;
  if (err instanceof Error) {
    if (err.name === 'TimeoutError') return `timed out after ${timeoutMs} ms`;
    if (err.name === 'AbortError') return 'aborted (run cancelled or service stopping)';
    const cause = (err as Error & { cause?: unknown }).cause;
    const failure = cause instanceof Error ? cause : err;
    const code = (failure as NodeJS.ErrnoException).code;
    return code ? `${code}: ${failure.message}` : failure.message;
  }
  return String(err);
}
