import { randomUUID } from 'node:crypto';
import type { Coordination } from '../coordination/types.js';
import { conflict } from '../domain/errors.js';

const GATE_LOCK = 'business:cycle-gate';
const LEASE_MS = 30_000;
const POLL_MS = 25;
/** How long a decision on behalf of a caller (trigger, retry, switch, slot, a run's cycle) queues for the gate. */
export const GATE_WAIT_MS = 2000;
/** How long a cycle run queues to record its outcome: longer, since losing it would leave the cycle active. */
export const FINISH_WAIT_MS = 15_000;

/**
 * The one critical section of business cycle state: every decision (start, retry, finish,
 * scheduler switch, orphan reconciliation) reads the persisted state and writes it back while
 * holding this leased lock through the Coordination port, so two instances sharing a store and
 * a key-value store never start one cycle twice. `waitMs` bounds how long a caller queues.
 */
export function createCycleGate(coordination: Coordination) {
  return async function withGate<T>(waitMs: number, fn: () => Promise<T>): Promise<T> {
    const owner = `gate-${randomUUID()}`;
    const deadline = Date.now() + waitMs;
    while (!(await coordination.acquireLock(GATE_LOCK, owner, LEASE_MS))) {
      if (Date.now() >= deadline) throw conflict('another business cycle decision is in progress', { decision: 'active' });
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    try {
      return await fn();
    } finally {
      await coordination.releaseLock(GATE_LOCK, owner);
    }
  };
}

export type CycleGate = ReturnType<typeof createCycleGate>;
