/**
 * The ways a cycle starts on request, each one decision inside the gate: an operator's trigger,
 * the retry of a failed cycle, and the run of a `business-value-cycle` task (the cycle its
 * trigger recorded, or a new one when the task was triggered directly). Each reconciles the lock
 * first and is refused with the scheduler's decision code (409) when a cycle may not start.
 */

import type { Clock } from '../clock.js';
import { conflict, notFound } from '../domain/errors.js';
import type { Identity } from '../domain/identity.js';
import { GATE_WAIT_MS, type CycleGate } from './cycle-gate.js';
import type { ReconcileLock } from './cycle-lock.js';
import { refusalFor, type CycleRecord, type SchedulerState, type TriggerSource } from './cycle-rules.js';
import type { StartCycle } from './cycle-start.js';
import type { CycleStore } from './cycle-store.js';

export interface CycleTriggerDeps {
  cycles: CycleStore;
  withGate: CycleGate;
  clock: Clock;
  reconcileLock: ReconcileLock;
  startCycle: StartCycle;
}

export function createCycleTriggers(deps: CycleTriggerDeps) {
  const { cycles, withGate, clock, reconcileLock, startCycle } = deps;

  function refuse(state: SchedulerState, source: TriggerSource): void {
    const refusal = refusalFor(state, clock.now(), source);
    if (refusal) throw conflict(refusal.message, { decision: refusal.code, ...(refusal.until ? { until: refusal.until } : {}) });
  }

  async function trigger(reason: string | undefined, identity: Identity) {
    const cycle = await withGate(GATE_WAIT_MS, async () => {
      const state = await reconcileLock(await cycles.scheduler());
      refuse(state, 'operator');
      return startCycle(state, { source: 'operator', reason: reason ?? 'operator trigger', requestedBy: identity.actor }, {});
    });
    return { status: 'queued' as const, cycleId: cycle.cycleId, taskId: cycle.taskId, runId: cycle.runId };
  }

  async function retry(cycleId: string, identity: Identity) {
    const cycle = await withGate(GATE_WAIT_MS, async () => {
      const state = await reconcileLock(await cycles.scheduler());
      const failed = await cycles.cycle(cycleId);
      if (!failed) throw notFound(`business cycle ${cycleId}`);
      if (failed.state !== 'failed') throw conflict(`business cycle ${cycleId} did not fail (state ${failed.state}); only failed cycles are retried`, { decision: 'not-failed' });
      if (failed.retriedBy) throw conflict(`business cycle ${cycleId} was already retried as ${failed.retriedBy}`, { decision: 'already-retried' });
      refuse(state, 'retry');
      const started = await startCycle(state, { source: 'retry', reason: `retry of ${cycleId}`, requestedBy: identity.actor }, { retryOf: cycleId });
      await cycles.saveCycle({ ...failed, retriedBy: started.cycleId, updatedAt: clock.now().toISOString() });
      return started;
    });
    return { status: 'queued' as const, cycleId: cycle.cycleId, taskId: cycle.taskId, runId: cycle.runId, retryOf: cycleId };
  }

  /** The cycle a run executes: the one the trigger recorded, or (a direct task trigger) a new one through the same gate. */
  async function cycleForRun(runId: string, payload: Record<string, unknown>, requestedBy: string): Promise<CycleRecord> {
    if (typeof payload.cycleId === 'string') {
      const recorded = await cycles.cycle(payload.cycleId);
      if (recorded) return recorded;
    }
    return withGate(GATE_WAIT_MS, async () => {
      const state = await reconcileLock(await cycles.scheduler());
      if (state.activeLock?.runId === runId) {
        const mine = await cycles.cycle(state.activeLock.cycleId);
        if (mine) return mine;
      }
      const refusal = refusalFor(state, clock.now(), 'task');
      if (refusal) {
        throw conflict(`business cycle refused (${refusal.code}): ${refusal.message}`, {
          decision: refusal.code,
          ...(refusal.until ? { until: refusal.until } : {}),
        });
      }
      const reason = typeof payload.reason === 'string' ? payload.reason : 'task trigger';
      return startCycle(state, { source: 'task', reason, requestedBy }, { runId, cycleId: `cycle-run-${runId.replace(/[^A-Za-z0-9._-]/g, '-')}` });
    });
  }

  return { trigger, retry, cycleForRun };
}

export type CycleTriggers = ReturnType<typeof createCycleTriggers>;
