import { DomainError } from '../domain/errors.js';

/** What a body longer than the cap does: ends at the cap (the reader is told it was cut) or fails the read. */
export type OverLimit = 'truncate' | 'fail';

export interface CappedResponse {
  /** The same status and headers; the body delivers at most the cap. */
  response: Response;
  /** True once the body was cut at the cap ('truncate'); known after the body was read. */
  truncated(): boolean;
}

/**
 * Limits the body of `response` to `maxBytes` as it streams, so no reader can buffer more: past
 * the cap the download stops (the connection is dropped), and the body either ends there or
 * fails with `upstream_error` naming the limit. A read that fails once `deadline` has passed
 * fails with the deadline's reason (a timeout), whatever the torn connection said.
 */
export function capBody(response: Response, maxBytes: number, overLimit: OverLimit, deadline: AbortSignal): CappedResponse {
  if (response.body === null) return { response, truncated: () => false };
  const reader = response.body.getReader();
  let total = 0;
  let truncated = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        controller.error(deadline.aborted ? deadline.reason : error);
        return;
      }
      if (next.done) {
        controller.close();
        return;
      }
      const chunk = next.value;
      if (total + chunk.byteLength <= maxBytes) {
        total += chunk.byteLength;
        controller.enqueue(chunk);
        return;
      }
      await reader.cancel();
      if (overLimit === 'fail') {
        controller.error(new DomainError('upstream_error', `response body exceeds the ${maxBytes}-byte limit`));
        return;
      }
      controller.enqueue(chunk.subarray(0, maxBytes - total));
      total = maxBytes;
      truncated = true;
      controller.close();
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const capped = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  return { response: capped, truncated: () => truncated };
}
