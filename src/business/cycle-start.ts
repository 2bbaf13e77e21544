/**
 * The start of a cycle, inside the gate: admits the cycle's run through the one admission path
 * (unless the run already exists: a direct task trigger), then records the cycle `active` with
 * that run and its lock in the scheduler state. A run that cannot be admitted ends its cycle
 * `failed` and counts towards the backoff.
 *
 * The run is admitted before the cycle is recorded so that the cycle carries the run's real ids
 * from its first write: an operator's or a retry's cycle run takes its task id as its run id, so
 * both ids the trigger answers resolve at `GET /api/tasks/runs/:runId`. A run that starts at once
 * and looks for its cycle before it is recorded waits on the gate this start holds, then finds
 * its cycle through the lock (cycle-triggers.ts).
 */

import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { SERVICE_RUN_ID_PREFIXES } from '../domain/service-run-ids.js';
import type { Admit } from '../runtime/admission.js';
import type { CycleOutcome } from './cycle-outcome.js';
import type { CycleRecord, SchedulerState } from './cycle-rules.js';
import type { CycleStore } from './cycle-store.js';
import { nextSlot } from './next-slot.js';
import { businessValueCycleType } from '../lanes/business-value-cycle/definition.js';

export const BUSINESS_CYCLE_TASK = businessValueCycleType.type;

const runIdOf = (cycleId: string) => `${SERVICE_RUN_ID_PREFIXES.businessCycle}${cycleId}`;

export interface StartOptions {
  /**
   * A fixed id (a scheduled slot's, a task-triggered run's); else a fresh one. A fixed id also
   * fixes the run id (`business-cycle:<cycleId>`), so two instances starting the same slot admit
   * one run.
   */
  cycleId?: string;
  retryOf?: string;
  /** The run that already executes this cycle (a direct task trigger): nothing is admitted. */
  runId?: string;
}

/** Inside the gate: admits the cycle's run, then records the cycle and its lock. */
export type StartCycle = (state: SchedulerState, trigger: CycleRecord['trigger'], options: StartOptions) => Promise<StartedCycle>;

/** A started cycle always has its run. */
export type StartedCycle = CycleRecord & { runId: string };

export function createCycleStart(deps: { cycles: CycleStore; clock: Clock; admit: Admit; outcome: CycleOutcome }): StartCycle {
  const { cycles, clock, outcome } = deps;

  /** The cycle's run: the one given, or a newly admitted one (its task id its run id unless the cycle id is fixed). */
  async function runOf(cycleId: string, trigger: CycleRecord['trigger'], options: StartOptions): Promise<{ runId: string; taskId: string | null }> {
    if (options.runId) return { runId: options.runId, taskId: null };
    const admission = await deps.admit({
      type: BUSINESS_CYCLE_TASK,
      payload: { cycleId, reason: trigger.reason },
      source: trigger.source === 'schedule' ? 'scheduler' : 'api',
      requestedBy: trigger.requestedBy,
      ...(options.cycleId ? { forceRunId: runIdOf(cycleId) } : {}),
    });
    return { runId: admission.run.runId, taskId: admission.run.taskId };
  }

  return async (state, trigger, options) => {
    const now = clock.now();
    const at = now.toISOString();
    const cycleId = options.cycleId ?? `cycle-${at.replace(/[:.]/g, '')}-${randomUUID().slice(0, 8)}`;
    const started: CycleRecord = {
      cycleId,
      state: 'active',
      trigger,
      startedAt: at,
      updatedAt: at,
      finishedAt: null,
      runId: null,
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
    const triggered: SchedulerState = {
      ...state,
      lastTriggerReason: trigger.reason,
      lastTriggerSource: trigger.source,
      lastTriggeredAt: at,
      nextRunAt: state.mode === 'enabled' ? nextSlot(state.cron, now) : null,
    };
    let run: { runId: string; taskId: string | null };
    try {
      run = await runOf(cycleId, trigger, options);
    } catch (err) {
      const error = `the cycle run could not be admitted: ${(err as Error).message}`;
      await cycles.saveScheduler(triggered);
      await outcome.finish(started, { state: 'failed', error, blockers: [error] }, error, true, null);
      throw err;
    }
    const cycle: StartedCycle = { ...started, ...run };
    await cycles.saveCycle(cycle);
    await cycles.saveScheduler({ ...triggered, activeLock: { cycleId, runId: run.runId, acquiredAt: at, ownerId: trigger.requestedBy } });
    return cycle;
  };
}
