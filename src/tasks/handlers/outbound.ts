/** Outbound HTTP helpers shared by the handlers that reach the network (feeds, digest target). */
import { DomainError } from '../../domain/errors.js';

export const OUTBOUND_TIMEOUT_MS = 10_000;

/** Aborts on the run's own signal (cancel, shutdown) or after `timeoutMs`, whichever is first. */
export function outboundSignal(runSignal: AbortSignal, timeoutMs: number = OUTBOUND_TIMEOUT_MS): AbortSignal {
  return AbortSignal.any([runSignal, AbortSignal.timeout(timeoutMs)]);
}

/**
 * A one-line cause for a failed request. fetch wraps the interesting part (ECONNREFUSED,
 * ENOTFOUND, a TLS problem) in `cause`, which is what an operator needs to see.
 */
export function describeFetchError(err: unknown, timeoutMs: number = OUTBOUND_TIMEOUT_MS): string {
  if (err instanceof Error) {
    if (err.name === 'TimeoutError') return `timed out after ${timeoutMs} ms`;
    if (err.name === 'AbortError') return 'aborted (run cancelled or service stopping)';
    const cause = (err as Error & { cause?: unknown }).cause;
    if (cause instanceof Error) {
      const code = (cause as NodeJS.ErrnoException).code;
      return code ? `${code}: ${cause.message}` : cause.message;
    }
    return err.message;
  }
  return String(err);
}

/** Reads a response body as text, refusing one larger than `maxBytes` rather than buffering it all. */
export async function readTextLimited(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw new DomainError('upstream_error', `response body of ${declared} bytes exceeds the ${maxBytes}-byte limit`);
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new DomainError('upstream_error', `response body exceeds the ${maxBytes}-byte limit`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
