/**
 * The reconciliation of the persisted cycle lock, run before every decision inside the gate: a
 * lock whose run failed or was cancelled ends its cycle `failed`; a lock whose run is gone or
 * long finished (orphaned after 30 min, DECISIONS) or whose cycle already ended is freed. Only a
 * failed run counts towards the backoff: a cancel or an orphan is not the planner's failure.
 */

import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { StateStore } from '../store/types.js';
import type { CycleOutcome } from './cycle-outcome.js';
import { isOrphaned, type SchedulerState } from './cycle-rules.js';
import type { CycleStore } from './cycle-store.js';

export interface CycleLockDeps {
  store: StateStore;
  cycles: CycleStore;
  clock: Clock;
  logger: Logger;
  outcome: CycleOutcome;
}

/** Inside the gate: the scheduler state with its lock reconciled (the same state when nothing changed). */
export type ReconcileLock = (state: SchedulerState) => Promise<SchedulerState>;

export function createLockReconciler(deps: CycleLockDeps): ReconcileLock {
  const { store, cycles, clock, logger, outcome } = deps;
  return async (state) => {
    const lock = state.activeLock;
    if (!lock) return state;
    const run = await store.getRun(lock.runId);
    const status = run?.status ?? null;
    const cycle = await cycles.cycle(lock.cycleId);
    const now = clock.now();
    if (status === 'failed' && cycle?.state === 'active') {
      logger.warn({ cycleId: lock.cycleId }, 'business cycle run failed; cycle marked failed');
      await outcome.fail(cycle, run?.error ?? 'the cycle run failed', true);
      return cycles.scheduler();
    }
    if (status === 'cancelled' && cycle?.state === 'active') {
      // An operator stopped the cycle's run: the cycle ends, but a cancel is not a planner failure (no backoff).
      const error = `the cycle run was cancelled by ${run?.cancellation?.requestedBy ?? 'an operator'}`;
      logger.warn({ cycleId: lock.cycleId }, 'business cycle run cancelled; cycle marked failed');
      await outcome.fail(cycle, error, false);
      return cycles.scheduler();
    }
    if (isOrphaned(lock, status, now) || (cycle && cycle.state !== 'active') || (status === 'success' && !cycle)) {
      logger.warn({ cycleId: lock.cycleId, runStatus: status }, 'orphaned business cycle lock reconciled');
      if (cycle?.state === 'active') {
        // An orphan is lost infrastructure, not a planner failure: it does not add to the backoff.
        await outcome.fail(cycle, `orphaned lock: no live execution for cycle run ${lock.runId} (run ${status ?? 'missing'})`, false);
        return cycles.scheduler();
      }
      const next = { ...state, activeLock: null };
      await cycles.saveScheduler(next);
      return next;
    }
    return state;
  };
}
