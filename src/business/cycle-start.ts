/**
 * The start of a cycle, inside the gate: records the cycle `active` and its lock in the
 * scheduler state, then admits the cycle's run through the one admission path (unless the run
 * already exists: a direct task trigger). A run that cannot be admitted ends its cycle `failed`
 * and counts towards the backoff.
 */

import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { SERVICE_RUN_ID_PREFIXES } from '../domain/service-run-ids.js';
import type { Admit } from '../tasks/admission.js';
import type { CycleOutcome } from './cycle-outcome.js';
import type { CycleRecord, SchedulerState } from './cycle-rules.js';
import type { CycleStore } from './cycle-store.js';
import { nextSlot } from './next-slot.js';

export const BUSINESS_CYCLE_TASK = 'business-value-cycle';

const runIdOf = (cycleId: string) => `${SERVICE_RUN_ID_PREFIXES.businessCycle}${cycleId}`;

export interface StartOptions {
  /** A fixed id (a scheduled slot's, a task-triggered run's); else a fresh one. */
  cycleId?: string;
  retryOf?: string;
  /** The run that already executes this cycle (a direct task trigger): nothing is admitted. */
  runId?: string;
}

/** Inside the gate: records the cycle and its lock, then admits its run. */
export type StartCycle = (state: SchedulerState, trigger: CycleRecord['trigger'], options: StartOptions) => Promise<CycleRecord>;

export function createCycleStart(deps: { cycles: CycleStore; clock: Clock; admit: Admit; outcome: CycleOutcome }): StartCycle {
  const { cycles, clock, outcome } = deps;
  return async (state, trigger, options) => {
    const now = clock.now();
    const at = now.toISOString();
    const cycleId = options.cycleId ?? `cycle-${at.replace(/[:.]/g, '')}-${randomUUID().slice(0, 8)}`;
    const runId = options.runId ?? runIdOf(cycleId);
    const cycle: CycleRecord = {
      cycleId,
      state: 'active',
      trigger,
      startedAt: at,
      updatedAt: at,
      finishedAt: null,
      runId,
      taskId: null,
      retryOf: options.retryOf ?? null,
      retriedBy: null,
      registry: null,
      candidates: [],
      selected: null,
      approvalGated: [],
      evidence: [],
      blockers: [],
      nextActions: [],
      error: null,
    };
    await cycles.saveCycle(cycle);
    await cycles.saveScheduler({
      ...state,
      activeLock: { cycleId, runId, acquiredAt: at, ownerId: trigger.requestedBy },
      lastTriggerReason: trigger.reason,
      lastTriggerSource: trigger.source,
      lastTriggeredAt: at,
      nextRunAt: state.mode === 'enabled' ? nextSlot(state.cron, now) : null,
    });
    if (options.runId) return cycle;
    try {
      const admission = await deps.admit({
        type: BUSINESS_CYCLE_TASK,
        payload: { cycleId, reason: trigger.reason },
        source: trigger.source === 'schedule' ? 'scheduler' : 'api',
        requestedBy: trigger.requestedBy,
        forceRunId: runId,
      });
      const admitted = { ...cycle, taskId: admission.run.taskId };
      await cycles.saveCycle(admitted);
      return admitted;
    } catch (err) {
      const error = `the cycle run could not be admitted: ${(err as Error).message}`;
      await outcome.finish(cycle, { state: 'failed', error, blockers: [error] }, error, true, null);
      throw err;
    }
  };
}
