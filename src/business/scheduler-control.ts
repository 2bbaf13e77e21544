/**
 * The business scheduler's state as an operator sees and sets it: the mode switch (pause,
 * resume, enable, disable, decided inside the gate) and the scheduler's read model (whether a
 * cycle is active, when the next slot falls, whether the failure backoff still holds).
 */

import type { Clock } from '../clock.js';
import type { Identity } from '../domain/identity.js';
import { GATE_WAIT_MS, type CycleGate } from './cycle-gate.js';
import type { SchedulerMode, SchedulerState } from './cycle-rules.js';
import type { CycleStore } from './cycle-store.js';
import { nextSlot } from './next-slot.js';

export const SCHEDULER_ACTIONS = ['pause', 'resume', 'enable', 'disable'] as const;
export type SchedulerAction = (typeof SCHEDULER_ACTIONS)[number];
const MODE_OF: Record<SchedulerAction, SchedulerMode> = { pause: 'paused', resume: 'enabled', enable: 'enabled', disable: 'disabled' };

export function createSchedulerControl(deps: { cycles: CycleStore; withGate: CycleGate; clock: Clock }) {
  const { cycles, withGate, clock } = deps;

  async function setScheduler(action: SchedulerAction, identity: Identity) {
    const state = await withGate(GATE_WAIT_MS, async () => {
      const current = await cycles.scheduler();
      const mode = MODE_OF[action];
      const now = clock.now();
      const next: SchedulerState = {
        ...current,
        mode,
        modeChangedAt: now.toISOString(),
        modeChangedBy: identity.actor,
        nextRunAt: mode === 'enabled' ? nextSlot(current.cron, now) : null,
      };
      await cycles.saveScheduler(next);
      return next;
    });
    return { status: 'updated' as const, scheduler: state };
  }

  async function schedulerView() {
    const state = await cycles.scheduler();
    const now = clock.now();
    return {
      ...state,
      cycleState: state.activeLock ? ('active' as const) : ('idle' as const),
      nextRunAt: state.mode === 'enabled' ? (state.nextRunAt && Date.parse(state.nextRunAt) > now.getTime() ? state.nextRunAt : nextSlot(state.cron, now)) : null,
      backoffActive: state.failureBackoff !== null && Date.parse(state.failureBackoff.backoffUntil) > now.getTime(),
    };
  }

  return { setScheduler, schedulerView };
}

export type SchedulerControl = ReturnType<typeof createSchedulerControl>;
