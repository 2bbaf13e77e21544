/**
 * What the business roles ask of a run they recorded (a cycle's own run, the task its planner
 * chose): its status now, or null when there is no run. The planner's in-flight check, the
 * scheduled slot's inputs fingerprint and the read models all read a status this one way.
 */

import type { StateStore } from '../store/types.js';

/** Statuses of a run still under way: its candidate is in flight, its worker is active. */
export const LIVE_RUN_STATUSES: ReadonlySet<string> = new Set(['pending', 'running', 'retrying']);

export type RunStatusReader = (runId: string | null | undefined) => Promise<string | null>;

export function runStatusReader(store: StateStore): RunStatusReader {
  return async (runId) => {
    if (!runId) return null;
    return (await store.getRun(runId))?.status ?? null;
  };
}
