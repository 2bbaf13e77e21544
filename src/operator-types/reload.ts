import type { Logger } from 'pino';
import { CacheTags, type CacheInvalidator } from '../domain/cache-invalidation.js';
import type { OperatorTypes, ReloadAnswer } from './operator-types.js';

export interface TaskTypeReload {
  /** Re-reads the task types folder on this instance and answers what changed. */
  reload(): Promise<ReloadAnswer>;
}

/**
 * `POST /api/task-types/reload`: the folder read again, the registry replaced, and the cached
 * catalog and OpenAPI document dropped so the next read shows the new types.
 */
export function createTaskTypeReload(deps: {
  operatorTypes: OperatorTypes;
  invalidator: CacheInvalidator;
  logger: Logger;
  /** What else follows the new registry (metric labels, a wake-up of the runner for limits that changed). */
  afterReload?: () => void;
}): TaskTypeReload {
  return {
    async reload() {
      const answer = deps.operatorTypes.reload();
      deps.afterReload?.();
      await deps.invalidator.invalidate([CacheTags.catalog, CacheTags.openapi]);
      deps.logger.info({ added: answer.added, changed: answer.changed, removed: answer.removed, refused: answer.refused.map((r) => r.folder) }, 'task types reloaded');
      return answer;
    },
  };
}
