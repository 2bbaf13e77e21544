import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import type { Coordination } from '../coordination/types.js';
import type { CacheInvalidator } from '../domain/cache-invalidation.js';
import type { StateStore } from '../store/types.js';
import type { AdmissionOutcome, AdmissionRequest } from '../tasks/admission.js';
import { narrowConfig } from '../config/narrow.js';
import { docChange } from '../lanes/doc-change/handler.js';
import { docSync } from '../lanes/doc-sync/handler.js';
import { bindStateHandler } from '../tasks/handler-types.js';
import type { LaneDefinition } from '../tasks/lanes.js';
import { startDocWatcher, type DocWatcher } from './doc-watcher.js';
import { createRepairLoop } from './repair-loop.js';
import { createKnowledgeService } from './service.js';
import { docChangeType } from '../lanes/doc-change/definition.js';
import { docSyncType } from '../lanes/doc-sync/definition.js';
import { driftRepairType } from '../lanes/drift-repair/definition.js';

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
 * The knowledge part of the service: the index service, the doc-change → drift-repair loop, the
 * doc-sync and doc-change handlers bound to them, and the doc watcher. `start` loads the
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
  const lanes: LaneDefinition[] = [
    { type: docSyncType.type, handler: bindStateHandler(docSync, { ...paths, knowledge: service }) },
    { type: docChangeType.type, handler: bindStateHandler(docChange, { ...paths, knowledge: service, repairLoop }) },
    // drift-repair runs as a worker: it is told where the docs, packs and index live, since a
    // worker cannot read the configuration.
    { type: driftRepairType.type, workerInput: () => ({ __knowledge: { docsPath: paths.docsPath, knowledgePackDir: paths.knowledgePackDir, logsDir: paths.logsDir } }), afterFinish: repairLoop.onRunFinished },
  ];
  let watcher: DocWatcher | null = null;

  return {
    service,
    repairLoop,
    /** The knowledge lanes: doc-sync and doc-change in-process, drift-repair's worker input and outcome. */
    lanes,
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
