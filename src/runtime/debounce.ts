import { createHash } from 'node:crypto';
import Type, { type Static } from 'typebox';
import { invalidRequest, pointer } from '../domain/errors.js';
import { MAX_CONCURRENCY_KEY_LENGTH } from '../domain/run-record.js';
import { SERVICE_RUN_ID_PREFIXES } from '../domain/service-run-ids.js';

/** The longest debounce window: a day. */
export const MAX_DEBOUNCE_WINDOW_MS = 86_400_000;

/**
 * A trigger's `debounce` (docs/queue.md): triggers with the same key inside one window make one
 * run; the later ones answer as a duplicate does, reason `debounced`.
 */
export const DebounceField = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: MAX_CONCURRENCY_KEY_LENGTH, description: 'triggers with this key in one window make one run' }),
    windowMs: Type.Integer({ minimum: 1, maximum: MAX_DEBOUNCE_WINDOW_MS, description: 'the window, in ms; windows are fixed, aligned to multiples of it since the epoch' }),
    mode: Type.Optional(
      Type.Union([Type.Literal('leading')], { description: '`leading` (the default): the first trigger of the window runs, at once' }),
    ),
  },
  { additionalProperties: false },
);
export type Debounce = Static<typeof DebounceField>;

/**
 * The run id of the window `now` falls in. Every instance derives the same id for the same key
 * and window, so the store's one-run-per-id admission makes the window's run exactly once, with
 * no state of its own and no clock agreement needed beyond the window's edges. The key is hashed:
 * it may hold any text, and the id stays short.
 */
export function debounceRunId(debounce: Debounce, now: Date): string {
  const digest = createHash('sha256').update(debounce.key).digest('hex').slice(0, 32);
  const window = Math.floor(now.getTime() / debounce.windowMs);
  return `${SERVICE_RUN_ID_PREFIXES.debounce}${digest}:${debounce.windowMs}:${window}`;
}

/** A client's idempotency key is its run's id; a debounce names the run itself: the two never go together. */
export function refuseDebounceWithIdempotencyKey(payload: Record<string, unknown> | undefined): void {
  if (payload?.idempotencyKey === undefined) return;
  throw invalidRequest('debounce and payload.idempotencyKey cannot be sent together: a debounce names its window\'s run itself', [
    { path: pointer('body', 'debounce'), message: 'cannot be combined with payload.idempotencyKey' },
  ]);
}

/** The admission fields of a debounced trigger at `now`: its window's run id, answered `debounced` when found. */
export function debouncedAdmission(debounce: Debounce, now: Date): { forceRunId: string; debounced: true } {
  return { forceRunId: debounceRunId(debounce, now), debounced: true };
}
