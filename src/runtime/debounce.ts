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
      Type.Union([Type.Literal('leading'), Type.Literal('trailing')], {
        description:
          '`leading` (the default): the first trigger of the window runs, at once; `trailing`: one run once the window ends, with the payload of the last trigger received in it',
      }),
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

/** When the window `now` falls in ends: a trailing debounce's run is claimable from then on. */
export function debounceWindowEnd(debounce: Debounce, now: Date): Date {
  return new Date((Math.floor(now.getTime() / debounce.windowMs) + 1) * debounce.windowMs);
}

/**
 * The admission fields of a debounced trigger at `now`: its window's run id, answered `debounced`
 * when found. A trailing one also waits for the window's end (`notBefore`), and a later trigger
 * of the window replaces the waiting run's payload (`debounced: "trailing"`).
 */
export function debouncedAdmission(debounce: Debounce, now: Date): { forceRunId: string; debounced: 'leading' | 'trailing'; notBefore?: Date } {
  const forceRunId = debounceRunId(debounce, now);
  if (debounce.mode === 'trailing') return { forceRunId, debounced: 'trailing', notBefore: debounceWindowEnd(debounce, now) };
  return { forceRunId, debounced: 'leading' };
}
