/**
 * The build and refresh of the knowledge index: brings the held index up to date with the docs
 * folder (incrementally, build-index.ts), and only when something changed persists it (the file
 * replaced atomically, the logs folder checked first) and invalidates the knowledge cache tag.
 * Concurrent callers share refreshes (fresh-share.ts): each sees every change made before it asked.
 */

import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { CacheTags, type CacheInvalidator } from '../domain/cache-invalidation.js';
import { freshShared } from '../domain/fresh-share.js';
import { assertConfiguredPath } from '../workspace/configured-folder.js';
import { buildIndex } from './build-index.js';
import type { KnowledgePaths } from './described-files.js';
import { writeKnowledgeIndex } from './index-file.js';
import type { DocChanges, KnowledgeIndex } from './index-model.js';
import type { LoadedIndex } from './loaded-index.js';

export interface RefreshOutcome {
  index: KnowledgeIndex;
  changed: boolean;
  changes: DocChanges;
}

export interface IndexRefreshDeps {
  config: KnowledgePaths & { logsDir: string };
  clock: Clock;
  logger: Logger;
  invalidator: CacheInvalidator;
  loaded: LoadedIndex;
}

/**
 * Brings the index up to date with the docs folder; persists and invalidates only on change.
 * Every caller gets a refresh that started after its call, so it sees every change made before
 * it asked. Callers arriving while one runs share the next: four doc-sync runs at once cost two
 * walks of the docs folder, not four in a row.
 */
export function indexRefresh(deps: IndexRefreshDeps): () => Promise<RefreshOutcome> {
  const { config, clock, loaded } = deps;
  return freshShared(async () => {
    const previous = await loaded.startingPoint();
    const { index: next, changed } = await buildIndex(previous, { docsPath: config.docsPath, workspaceRoot: config.workspaceRoot, now: clock.now() });
    loaded.replace(next);
    if (changed) {
      assertConfiguredPath(config.logsDir, 'logs folder', config);
      await writeKnowledgeIndex(config.logsDir, next);
      await deps.invalidator.invalidate([CacheTags.knowledge]);
      deps.logger.info({ generation: next.generation, docs: next.docs.length, ...next.lastRefresh.changes }, 'knowledge index refreshed');
    }
    return { index: next, changed, changes: next.lastRefresh.changes };
  });
}
