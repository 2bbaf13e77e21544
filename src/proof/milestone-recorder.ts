import { CacheTags, type CacheInvalidator } from '../domain/cache-invalidation.js';
import type { RunRecord } from '../domain/run-record.js';
import type { StateStore } from '../store/types.js';
import { MILESTONE_RETENTION, milestoneForRun } from './milestones.js';

/**
 * Listens to finished runs and appends the milestone a run earns (src/proof/milestones.ts) to the
 * milestones collection, dropping the cached proof feeds that read it.
 */
export function createMilestoneRecorder(deps: { store: StateStore; invalidator: CacheInvalidator; now: () => Date }) {
  return async function recordMilestone(run: RunRecord): Promise<void> {
    const milestone = milestoneForRun(run, deps.now());
    if (!milestone) return;
    await deps.store.append('milestones', milestone, MILESTONE_RETENTION);
    await deps.invalidator.invalidate([CacheTags.proof]);
  };
}
