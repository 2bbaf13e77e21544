/**
 * One automatic business slot, decided inside the gate: reconcile the lock, then skip with a
 * reason (mode, active cycle, backoff, cooldown, not due, inputs unchanged) or start a cycle
 * with an id derived from the slot's minute, so two instances firing the same slot admit one
 * cycle. Another instance holding the gate for the slot is a skip, not an error.
 */

import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { DomainError } from '../domain/errors.js';
import { GATE_WAIT_MS, type CycleGate } from './cycle-gate.js';
import type { ReconcileLock } from './cycle-lock.js';
import { scheduledSkip } from './cycle-rules.js';
import type { StartCycle } from './cycle-start.js';
import type { CycleStore } from './cycle-store.js';
import { nextSlot } from './next-slot.js';
import type { RegistryLoad } from './registry.js';
import type { RegistrySource } from './registry-source.js';
import type { RunStatusReader } from './run-status.js';

export interface SlotEvaluation {
  outcome: 'started' | 'skipped';
  reason: string;
  cycleId?: string;
}

export interface ScheduledSlotDeps {
  cycles: CycleStore;
  withGate: CycleGate;
  clock: Clock;
  logger: Logger;
  registry: RegistrySource;
  runStatus: RunStatusReader;
  reconcileLock: ReconcileLock;
  startCycle: StartCycle;
}

export function createScheduledSlot(deps: ScheduledSlotDeps): () => Promise<SlotEvaluation> {
  const { cycles, withGate, clock, logger, runStatus, reconcileLock, startCycle } = deps;

  /** Registry fingerprint plus the last selected task's status: "unchanged" when both are. */
  async function currentInputs(registry: RegistryLoad, lastSelectedRunId: string | null): Promise<string | null> {
    if (!registry.fingerprint) return null;
    return `${registry.fingerprint}|${lastSelectedRunId ?? 'none'}:${(await runStatus(lastSelectedRunId)) ?? 'none'}`;
  }

  function evaluateLocked(): Promise<SlotEvaluation> {
    return withGate(GATE_WAIT_MS, async () => {
      const now = clock.now();
      const state = await reconcileLock(await cycles.scheduler());
      const [latest] = await cycles.cycles();
      const inputs = await currentInputs(await deps.registry.load(), latest?.selected?.runId ?? null);
      const skip = scheduledSkip(state, now, inputs);
      const nextRunAt = state.mode === 'enabled' ? nextSlot(state.cron, now) : null;
      if (skip) {
        await cycles.saveScheduler({ ...state, nextRunAt, lastEvaluation: { at: now.toISOString(), outcome: 'skipped', reason: skip.code } });
        return { outcome: 'skipped' as const, reason: skip.code };
      }
      const slot = new Date(Math.floor(now.getTime() / 60_000) * 60_000).toISOString().replace(/[:.]/g, '');
      const started = await startCycle(
        { ...state, lastEvaluation: { at: now.toISOString(), outcome: 'started', reason: 'due' } },
        { source: 'schedule', reason: 'scheduled cadence', requestedBy: 'scheduler' },
        { cycleId: `scheduled-${slot}` },
      );
      return { outcome: 'started' as const, reason: 'due', cycleId: started.cycleId };
    });
  }

  return async function evaluateSchedule(): Promise<SlotEvaluation> {
    try {
      const evaluated = await evaluateLocked();
      logger.info(evaluated, 'business slot evaluated');
      return evaluated;
    } catch (err) {
      // Another instance holds the gate for this very slot: that one decides.
      if (err instanceof DomainError && err.code === 'conflict') return { outcome: 'skipped', reason: 'active' };
      throw err;
    }
  };
}
