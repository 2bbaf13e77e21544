import type { HandlerOutcome } from '../handler-types.js';

/** An expected failure: the run fails with this reason instead of the handler throwing. */
export function failure(error: string): HandlerOutcome {
  return { status: 'error', error };
}
