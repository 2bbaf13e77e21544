import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import type { Coordination } from '../coordination/types.js';
import type { CacheInvalidator } from '../domain/cache-invalidation.js';
import type { StateStore } from '../store/types.js';
import type { AdmissionOutcome, AdmissionRequest } from '../runtime/admission.js';
import { narrowConfig } from '../config/narrow.js';
import { startDocWatcher, type DocWatcher } from './doc-watcher.js';
import { createRepairLoop } from './repair-loop.js';
import { createKnowledgeService } from './service.js';

export interface KnowledgeCompositionDeps {
  config: AppConfig;
  store: StateStore;
  coordination: Coordination;
  clock: Clock;
  logger: Logger;
  invalidator: CacheInvalidator;
  ownerId: string;
  /** The runtime's one admission path; called only once the runtime exists. */
  admit: (request: AdmissionRequest) => Promise<AdmissionOutcome>;
}

/**
 * The knowledge part of the service: the index service, the doc-change → drift-repair loop and
 * the doc watcher (the lanes that use them bind in src/lanes/knowledge-lanes.ts). `start` loads the
 * persisted index, refreshes it (unless fast start, where the queued doc-sync does it) and starts
 * the watcher when config.docWatcher is on; `stop` closes the watcher.
 */
export function composeKnowledge(deps: KnowledgeCompositionDeps) {
  const { config, logger } = deps;
  // The knowledge service and its handlers see the paths they work in, never the whole configuration.
  const paths = narrowConfig(config, ['docsPath', 'knowledgePackDir', 'logsDir', 'workspaceRoot']);
  const service = createKnowledgeService({
    config: paths,
    clock: deps.clock,
    logger: logger.child({ component: 'knowledge' }),
    invalidator: deps.invalidator,
    secrets: [...config.apiKeys.map((k) => k.secret), config.webhookSecret],
  });
  const repairLoop = createRepairLoop({
    store: deps.store,
    coordination: deps.coordination,
    clock: deps.clock,
    logger: logger.child({ component: 'repair-loop' }),
    invalidator: deps.invalidator,
    knowledge: service,
    admit: deps.admit,
    ownerId: deps.ownerId,
    logsDir: config.logsDir,
    cooldownMs: config.docRepairCooldownMs,
  });
  service.attachRepairPosture(() => repairLoop.posture());
  let watcher: DocWatcher | null = null;

  return {
    service,
    repairLoop,
    /** The paths the knowledge service and its lanes work in (src/lanes/knowledge-lanes.ts binds them). */
    paths,
    /** `dependencies.knowledge` of the extended health. */
    knowledgeStats: service.knowledgeStats,
    /** `repairs` of the extended health. */
    repairStats: repairLoop.repairStats,
    async start(): Promise<void> {
      await service.load();
      if (!config.fastStart) {
        await service.refresh().catch((err: unknown) => logger.error({ err }, 'knowledge index refresh at start failed'));
      }
      if (config.docWatcher) {
        watcher = startDocWatcher({ docsPath: config.docsPath, admit: deps.admit, logger: logger.child({ component: 'doc-watcher' }) });
        await watcher.ready;
      }
    },
    async stop(): Promise<void> {
      await watcher?.stop();
      watcher = null;
    },
  };
}

export type KnowledgeComposition = ReturnType<typeof composeKnowledge>;
