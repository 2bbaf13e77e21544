import { narrowConfig } from '../config/narrow.js';
import { bindStateHandler } from '../runtime/handler-types.js';
import type { LaneDefinition } from '../runtime/lanes.js';
import { createIntakeHandler } from './intake.js';
import { BUSINESS_CYCLE_TASK, createBusinessService, type BusinessDeps } from './service.js';
import { checkChainAdmission } from './work-cycle/chain-owner.js';
import { createWorkCycleHandler, WORK_CYCLE_TASK } from './work-cycle/handler.js';
import { autonomousIntakeCycleType } from '../lanes/autonomous-intake-cycle/definition.js';

/** The task types the business module serves in-process (the catalog marks them `handler`). */
export const BUSINESS_HANDLER_TYPES = [BUSINESS_CYCLE_TASK, autonomousIntakeCycleType.type, WORK_CYCLE_TASK] as const;

/**
 * The business module as the composition root wires it: the service behind the business routes
 * and the scheduler, and the in-process lanes of its three task types. The handlers need the
 * admission path and the store, which plain handlers do not get, so they are built here.
 */
export function createBusinessModule(deps: BusinessDeps) {
  const service = createBusinessService(deps);
  const lanes: LaneDefinition[] = [
    { type: BUSINESS_CYCLE_TASK, handler: bindStateHandler(service.handler, null) },
    { type: autonomousIntakeCycleType.type, handler: bindStateHandler(createIntakeHandler(deps), narrowConfig(deps.config, ['workspaceRoot'])) },
    {
      type: WORK_CYCLE_TASK,
      handler: bindStateHandler(createWorkCycleHandler(deps), narrowConfig(deps.config, ['workspaceRoot', 'logsDir'])),
      // A client naming a work chain continues it only when it is theirs (or they are an admin).
      requesterCheck: (payload, identity) => checkChainAdmission(deps.store, payload, identity),
    },
  ];
  return { service, lanes };
}

export type BusinessModule = ReturnType<typeof createBusinessModule>;
