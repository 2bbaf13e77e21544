import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import type { Coordination } from '../coordination/types.js';
import type { StateStore } from '../store/types.js';
import type { Admit } from '../runtime/admission.js';
import { createBusinessViews } from './business-views.js';
import { createCycleGate } from './cycle-gate.js';
import { createCycleHandler } from './cycle-handler.js';
import { createLockReconciler } from './cycle-lock.js';
import { createCycleOutcome } from './cycle-outcome.js';
import { createCyclePlanning } from './cycle-planning.js';
import { createCycleStart } from './cycle-start.js';
import { createCycleStore } from './cycle-store.js';
import { createCycleTriggers } from './cycle-triggers.js';
import { createPlannerContext } from './planner-context.js';
import { registrySource } from './registry-source.js';
import { runStatusReader } from './run-status.js';
import { createScheduledSlot } from './scheduled-slot.js';
import { createSchedulerControl } from './scheduler-control.js';

export { BUSINESS_CYCLE_TASK } from './cycle-start.js';
export { nextSlot } from './next-slot.js';
export { SCHEDULER_ACTIONS, type SchedulerAction } from './scheduler-control.js';

export interface BusinessDeps {
  config: AppConfig;
  store: StateStore;
  coordination: Coordination;
  clock: Clock;
  logger: Logger;
  /** The runtime's one admission path (bound after the runtime exists: its handlers need this service). */
  admit: Admit;
}

/**
 * The business-value planner's cycles and scheduler as the routes, the scheduler and the lane
 * registration use them: a facade over the roles built here from explicit deps. All state lives
 * in the state store (cycle-store.ts); every decision runs inside the cycle gate (cycle-gate.ts).
 * The roles: lock reconciliation (cycle-lock.ts), start (cycle-start.ts), outcome recording
 * (cycle-outcome.ts), the triggers (cycle-triggers.ts), the scheduled slot (scheduled-slot.ts),
 * the scheduler switch and view (scheduler-control.ts), the planner's context and enqueue
 * (planner-context.ts, cycle-planning.ts), the cycle run's handler (cycle-handler.ts) and the
 * read models (business-views.ts).
 */
export function createBusinessService(deps: BusinessDeps) {
  const { config, store, clock, logger } = deps;
  const cycles = createCycleStore(store, config.businessCycleCron);
  const withGate = createCycleGate(deps.coordination);
  const registry = registrySource(config);
  const runStatus = runStatusReader(store);
  const outcome = createCycleOutcome({ cycles, clock });
  const reconcileLock = createLockReconciler({ store, cycles, clock, logger, outcome });
  const startCycle = createCycleStart({ cycles, clock, admit: deps.admit, outcome });
  const plannerContext = createPlannerContext({ config, cycles, runStatus });
  const triggers = createCycleTriggers({ cycles, withGate, clock, reconcileLock, startCycle });
  const scheduler = createSchedulerControl({ cycles, withGate, clock });
  const planCycle = createCyclePlanning({ admit: deps.admit, withGate, outcome, registry, plannerContext, runStatus });
  const views = createBusinessViews({ store, cycles, clock, registry, plannerContext, runStatus, schedulerView: scheduler.schedulerView });

  return {
    /** The in-process handler of business-value-cycle. */
    handler: createCycleHandler({ cycleForRun: triggers.cycleForRun, planCycle, withGate, outcome }),
    trigger: triggers.trigger,
    retry: triggers.retry,
    setScheduler: scheduler.setScheduler,
    /** One automatic slot: reconcile orphans first, then skip or start (deterministic cycle id per slot). */
    evaluateSchedule: createScheduledSlot({ cycles, withGate, clock, logger, registry, runStatus, reconcileLock, startCycle }),
    overview: views.overview,
    operations: views.operations,
    candidates: views.candidates,
    listCycles: views.listCycles,
    cycleDetail: views.cycleDetail,
    summary: views.summary,
  };
}

export type BusinessService = ReturnType<typeof createBusinessService>;
