import pino from 'pino';
import { systemClock } from '../../src/clock.js';
import type { StateStore } from '../../src/store/types.js';
import type { FinalizeDeps } from '../../src/runtime/finalize.js';

/**
 * What finalizing an attempt by hand needs over `store` (finalizeAttempt, recoverInterruptedRuns):
 * three attempts without backoff, no cache, no follow-ups (an admission throws), nobody told of a
 * finished run; `extra` replaces any of it.
 */
export function finalizeDepsOver(store: StateStore, extra: Partial<FinalizeDeps> = {}): FinalizeDeps {
  return {
    config: { retry: { maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 0 } },
    store,
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    invalidator: { invalidate: async () => {} },
    admit: async () => {
      throw new Error('no follow-ups are admitted in this test');
    },
    onRunFinished: async () => {},
    ...extra,
  };
}
