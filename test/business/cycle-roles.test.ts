import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createLockReconciler } from '../../src/business/cycle-lock.js';
import { createCycleOutcome } from '../../src/business/cycle-outcome.js';
import { BUSINESS_CYCLE_TASK, createCycleStart } from '../../src/business/cycle-start.js';
import { createCycleStore } from '../../src/business/cycle-store.js';
import { nextSlot } from '../../src/business/next-slot.js';
import { createSchedulerControl } from '../../src/business/scheduler-control.js';
import type { CycleGate } from '../../src/business/cycle-gate.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import type { AdmissionRequest, Admit } from '../../src/runtime/admission.js';
import { TestClock } from '../support/clocks.js';
import { testConfig } from '../support/config.js';
import { OPERATOR } from '../support/identities.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';

const CRON = '17 */6 * * *';
const stores: StateStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

/** The business cycle roles built one by one from explicit deps, as the service facade builds them. */
async function roles(admit: Admit) {
  const store = openStateStore(testConfig().stateTarget);
  await store.open();
  stores.push(store);
  const clock = new TestClock(new Date('2026-11-23T10:00:00.000Z'));
  const cycles = createCycleStore(store, CRON);
  const outcome = createCycleOutcome({ cycles, clock });
  const startCycle = createCycleStart({ cycles, clock, admit, outcome });
  const reconcileLock = createLockReconciler({ store, cycles, clock, logger: pino({ level: 'silent' }), outcome });
  // The gate's critical section is the caller's business here: one caller, no contention.
  const withGate: CycleGate = (_waitMs, fn) => fn();
  const scheduler = createSchedulerControl({ cycles, withGate, clock });
  return { store, clock, cycles, outcome, startCycle, reconcileLock, scheduler };
}

const trigger = { source: 'operator' as const, reason: 'role test', requestedBy: 'ops' };

describe('business cycle roles', () => {
  it('starts a slot cycle: admits its run under the slot-derived run id, then records it active with its lock', async () => {
    const requests: AdmissionRequest[] = [];
    const admit: Admit = async (request) => {
      requests.push(request);
      return { kind: 'admitted', run: makeRun({ runId: request.forceRunId!, taskId: 'task-cycle-1', type: request.type }) };
    };
    const { cycles, startCycle } = await roles(admit);
    const started = await startCycle(await cycles.scheduler(), trigger, { cycleId: 'cycle-a' });

    expect(requests).toEqual([expect.objectContaining({ type: BUSINESS_CYCLE_TASK, forceRunId: 'business-cycle:cycle-a', payload: { cycleId: 'cycle-a', reason: 'role test' } })]);
    expect(started).toMatchObject({ cycleId: 'cycle-a', state: 'active', runId: 'business-cycle:cycle-a', taskId: 'task-cycle-1' });
    expect(await cycles.cycle('cycle-a')).toEqual(started);
    const state = await cycles.scheduler();
    expect(state.activeLock).toMatchObject({ cycleId: 'cycle-a', runId: 'business-cycle:cycle-a', ownerId: 'ops' });
    expect(state.nextRunAt).toBe(nextSlot(CRON, new Date('2026-11-23T10:00:00.000Z')));
  });

  it('starts an operator cycle on a run whose id is its task id, recorded before the cycle is', async () => {
    const requests: AdmissionRequest[] = [];
    const { cycles, startCycle } = await roles(async (request) => {
      requests.push(request);
      // Admitted first: the cycle is not recorded yet, so the run never meets a cycle without its ids.
      expect(await cycles.cycle(String(request.payload.cycleId))).toBeNull();
      return { kind: 'admitted', run: makeRun({ runId: 'task-cycle-2', taskId: 'task-cycle-2', type: request.type }) };
    });
    const started = await startCycle(await cycles.scheduler(), trigger, {});

    expect(requests).toHaveLength(1);
    expect(requests[0]!.forceRunId).toBeUndefined();
    expect(started).toMatchObject({ state: 'active', runId: 'task-cycle-2', taskId: 'task-cycle-2' });
    expect(await cycles.cycle(started.cycleId)).toEqual(started);
    expect((await cycles.scheduler()).activeLock).toMatchObject({ cycleId: started.cycleId, runId: 'task-cycle-2' });
  });

  it('records a cycle whose run cannot be admitted as failed, counting towards the backoff and freeing the lock', async () => {
    const admit: Admit = async () => {
      throw new Error('the queue is full');
    };
    const { cycles, startCycle } = await roles(admit);
    await expect(startCycle(await cycles.scheduler(), trigger, { cycleId: 'cycle-b' })).rejects.toThrow('the queue is full');

    expect(await cycles.cycle('cycle-b')).toMatchObject({ state: 'failed', error: 'the cycle run could not be admitted: the queue is full' });
    const state = await cycles.scheduler();
    expect(state.activeLock).toBeNull();
    expect(state.failureBackoff).toMatchObject({ consecutiveFailures: 1, backoffUntil: '2026-11-23T10:15:00.000Z' });
  });

  it('reconciles a lock whose run was cancelled: the cycle fails with the retry route, without backoff', async () => {
    const admit: Admit = async (request) => ({ kind: 'admitted', run: makeRun({ runId: request.forceRunId!, type: request.type }) });
    const { store, cycles, startCycle, reconcileLock } = await roles(admit);
    await startCycle(await cycles.scheduler(), trigger, { cycleId: 'cycle-c' });
    const cancellation = { requestedAt: '2026-11-23T10:00:01.000Z', requestedBy: 'lead', reason: null, completedAt: '2026-11-23T10:00:02.000Z', signal: null };
    await store.mutateRun('business-cycle:cycle-c', insertIfAbsent(makeRun({ runId: 'business-cycle:cycle-c', type: BUSINESS_CYCLE_TASK, status: 'cancelled', queueState: null, cancellation })));

    const reconciled = await reconcileLock(await cycles.scheduler());
    expect(reconciled.activeLock).toBeNull();
    expect(reconciled.failureBackoff).toBeNull();
    expect(await cycles.cycle('cycle-c')).toMatchObject({
      state: 'failed',
      error: 'the cycle run was cancelled by lead',
      nextActions: ['POST /api/business/cycles/cycle-c/retry'],
    });
    // A reconciled state is left as it is.
    expect(await reconcileLock(reconciled)).toBe(reconciled);
  });

  it('switches the scheduler mode and reports the next slot only while enabled', async () => {
    const { scheduler } = await roles(async () => {
      throw new Error('nothing is admitted by a mode switch');
    });
    const paused = await scheduler.setScheduler('pause', OPERATOR);
    expect(paused.scheduler).toMatchObject({ mode: 'paused', modeChangedBy: 'ops', nextRunAt: null });
    expect(await scheduler.schedulerView()).toMatchObject({ mode: 'paused', cycleState: 'idle', nextRunAt: null, backoffActive: false });

    await scheduler.setScheduler('resume', OPERATOR);
    expect(await scheduler.schedulerView()).toMatchObject({ mode: 'enabled', nextRunAt: nextSlot(CRON, new Date('2026-11-23T10:00:00.000Z')) });
  });
});
