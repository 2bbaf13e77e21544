/**
 * The outcome recording of a cycle: writes the finished cycle and folds its end into the
 * scheduler state (last progress, failure backoff, the inputs fingerprint, the lock freed). Every
 * way a cycle ends (planned, blocked, failed, orphaned, cancelled) is recorded here; callers hold
 * the cycle gate.
 */

import type { Clock } from '../clock.js';
import { afterCycleFinished, type CycleRecord } from './cycle-rules.js';
import type { CycleStore } from './cycle-store.js';

export interface CycleOutcome {
  /** Records `cycle` finished with `outcome`; `countsAsFailure` adds to the failure backoff. */
  finish(
    cycle: CycleRecord,
    outcome: Partial<CycleRecord> & { state: CycleRecord['state'] },
    summary: string,
    countsAsFailure: boolean,
    inputs: string | null,
  ): Promise<CycleRecord>;
  /** Records `cycle` failed with `error`, pointing the operator at its retry route. */
  fail(cycle: CycleRecord, error: string, countsAsFailure: boolean): Promise<CycleRecord>;
}

export function createCycleOutcome(deps: { cycles: CycleStore; clock: Clock }): CycleOutcome {
  const { cycles, clock } = deps;

  const finish: CycleOutcome['finish'] = async (cycle, outcome, summary, countsAsFailure, inputs) => {
    const now = clock.now();
    const finished: CycleRecord = { ...cycle, ...outcome, updatedAt: now.toISOString(), finishedAt: now.toISOString() };
    await cycles.saveCycle(finished);
    const scheduler = await cycles.scheduler();
    await cycles.saveScheduler(afterCycleFinished(scheduler, { cycleId: cycle.cycleId, state: outcome.state, summary, countsAsFailure }, now, inputs));
    return finished;
  };

  return {
    finish,
    fail: (cycle, error, countsAsFailure) =>
      finish(cycle, { state: 'failed', error, blockers: [error], nextActions: [`POST /api/business/cycles/${cycle.cycleId}/retry`] }, error, countsAsFailure, null),
  };
}
