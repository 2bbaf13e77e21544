/**
 * The in-process handler of `business-value-cycle`: finds the cycle its run executes (through
 * the triggers), plans it, and answers the cycle's outcome as the run's result. A cycle that is
 * no longer active is not planned again (a restarted run); a planning error ends the cycle
 * `failed` (counting towards the backoff) and fails the run.
 */

import type { HandlerOutcome, StateHandler } from '../runtime/handler-types.js';
import { FINISH_WAIT_MS, type CycleGate } from './cycle-gate.js';
import type { CycleOutcome } from './cycle-outcome.js';
import type { PlanCycle } from './cycle-planning.js';
import type { CycleTriggers } from './cycle-triggers.js';

export interface CycleHandlerDeps {
  cycleForRun: CycleTriggers['cycleForRun'];
  planCycle: PlanCycle;
  withGate: CycleGate;
  outcome: CycleOutcome;
}

export function createCycleHandler(deps: CycleHandlerDeps): StateHandler<unknown> {
  const { cycleForRun, planCycle, withGate, outcome } = deps;
  return async (_state, _context, input): Promise<HandlerOutcome> => {
    const cycle = await cycleForRun(input.runId, input.payload, 'task');
    if (cycle.state !== 'active') {
      return { status: 'completed', result: { cycleId: cycle.cycleId, state: cycle.state, note: 'cycle already finished' } };
    }
    try {
      const { finished, summary } = await planCycle(cycle);
      return {
        status: 'completed',
        result: {
          cycleId: finished.cycleId,
          state: finished.state,
          selected: finished.selected,
          candidatesRanked: finished.candidates.length,
          approvalGated: finished.approvalGated,
          blockers: finished.blockers,
          operatorSummary: `Business cycle ${finished.cycleId} ${summary}.`,
          recommendedNextActions: finished.nextActions,
        },
      };
    } catch (err) {
      const error = (err as Error).message;
      await withGate(FINISH_WAIT_MS, () => outcome.fail(cycle, error, true));
      throw err;
    }
  };
}
