import type { LaneDefinition } from '../../runtime/lanes.js';
import { integrationWorkflowType } from './definition.js';
import { createWorkflowDriver, type WorkflowDriverDeps } from './driver.js';

/**
 * The integration-workflow lane's hooks: its worker only plans; the driver admits the plan's steps
 * as child runs once the plan is recorded (afterFinish), moves the workflow on as each child
 * settles (afterChildFinish) and, at start, picks up what a crash cut short (atStart).
 */
export function integrationWorkflowLanes(deps: WorkflowDriverDeps): LaneDefinition[] {
  const driver = createWorkflowDriver(deps);
  return [
    {
      type: integrationWorkflowType.type,
      afterFinish: driver.onRunFinished,
      afterChildFinish: driver.onRunFinished,
      atStart: async () => {
        await driver.reconcile();
      },
    },
  ];
}
