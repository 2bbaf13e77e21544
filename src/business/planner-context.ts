/**
 * The two facts of the service the pure planner (planner.ts) ranks with: which candidates still
 * have a task in flight (from the selections of the recent cycles) and whether a payload would
 * pass admission (schema, reserved fields, workspace scope). A cycle's planning and the live
 * candidate views read them the same way.
 */

import type { AppConfig } from '../config/types.js';
import { checkTaskRequest } from '../runtime/payload-validation.js';
import { checkPayloadScopes } from '../workspace/boundary.js';
import type { CycleStore } from './cycle-store.js';
import type { PlannerContext } from './planner.js';
import { LIVE_RUN_STATUSES, type RunStatusReader } from './run-status.js';

/** How many recent cycles are consulted for candidates whose task is still in flight. */
const IN_FLIGHT_WINDOW = 20;

export type PlannerContextReader = () => Promise<PlannerContext>;

export function createPlannerContext(deps: { config: Pick<AppConfig, 'workspaceRoot'>; cycles: CycleStore; runStatus: RunStatusReader }): PlannerContextReader {
  const { config, cycles, runStatus } = deps;

  /** Why admission would refuse this payload, or null when it would pass. */
  function checkPayload(taskType: string, payload: Record<string, unknown>): string | null {
    try {
      const checked = checkTaskRequest({ type: taskType, payload });
      const scope = checkPayloadScopes(checked.entry, checked.payload, config.workspaceRoot);
      return scope.length > 0 ? `payload ${scope.map((d) => `${d.path} ${d.message}`).join('; ')}` : null;
    } catch (err) {
      const details = (err as { details?: Array<{ path: string; message: string }> }).details;
      return `${(err as Error).message}${details ? `: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}` : ''}`;
    }
  }

  return async () => {
    const inFlight = new Set<string>();
    for (const cycle of (await cycles.cycles()).slice(0, IN_FLIGHT_WINDOW)) {
      if (cycle.selected && LIVE_RUN_STATUSES.has((await runStatus(cycle.selected.runId)) ?? '')) inFlight.add(cycle.selected.candidateId);
    }
    return { inFlight, checkPayload };
  };
}
