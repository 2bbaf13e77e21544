import Type from 'typebox';
import { DEFAULT_PRIORITY, MAX_CONCURRENCY_KEY_LENGTH, MAX_PRIORITY, MIN_PRIORITY } from '../domain/run-record.js';

/**
 * The queue placement fields of a request body (trigger, schedule): the route schemas spread
 * them into their bodies, so a bad key or priority is a 400 in the documented shape before
 * anything is admitted or stored (docs/queue.md).
 */
export const PlacementFields = {
  concurrencyKey: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_CONCURRENCY_KEY_LENGTH,
      description: 'runs are claimed round-robin across keys, oldest first within one; limit buckets may cap runs per key (docs/queue.md)',
    }),
  ),
  priority: Type.Optional(
    Type.Integer({
      minimum: MIN_PRIORITY,
      maximum: MAX_PRIORITY,
      description: `${MIN_PRIORITY} (lowest) to ${MAX_PRIORITY} (highest), default ${DEFAULT_PRIORITY}: higher priorities are claimed first; a waiting run's priority rises with its wait`,
    }),
  ),
};

/** The placement a request asks for, leaving out what it did not set (the admission fills the defaults). */
export function requestedPlacement(request: { concurrencyKey?: string; priority?: number }): { concurrencyKey?: string; priority?: number } {
  return {
    ...(request.concurrencyKey !== undefined ? { concurrencyKey: request.concurrencyKey } : {}),
    ...(request.priority !== undefined ? { priority: request.priority } : {}),
  };
}
