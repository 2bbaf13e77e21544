import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { CacheInvalidator } from '../domain/cache-invalidation.js';
import type { KnowledgePaths } from './described-files.js';
import { indexRefresh } from './index-refresh.js';
import { knowledgeExport } from './knowledge-export.js';
import { knowledgeQuery } from './knowledge-query.js';
import { knowledgeSummary } from './knowledge-summary.js';
import { latestPackReader } from './latest-pack.js';
import { loadedIndex } from './loaded-index.js';
import { repairPosturePort } from './repair-posture-port.js';
import type { RepairPosture } from './repair-posture.js';
import { secretScrub } from './secret-scrub.js';

export type { RefreshOutcome } from './index-refresh.js';
export type { KnowledgeQuery } from './knowledge-query.js';
export type { RepairPosture } from './repair-posture.js';

export interface KnowledgeConfig extends KnowledgePaths {
  logsDir: string;
  knowledgePackDir: string;
}

export interface KnowledgeServiceDeps {
  config: KnowledgeConfig;
  clock: Clock;
  logger: Logger;
  invalidator: CacheInvalidator;
  /** Values never to appear in an export (configured keys, the webhook secret). */
  secrets?: string[];
}

/**
 * The knowledge index as a service, a facade over its roles: the index held in memory
 * (loaded-index.ts, the one state they share), its build and refresh (index-refresh.ts), the
 * summary and counts (knowledge-summary.ts), the query (knowledge-query.ts), the export
 * (knowledge-export.ts) and the latest pack (latest-pack.ts). One refresh runs at a time in this
 * process; the persisted file is replaced atomically, so another process only ever reads a
 * whole index. Public bodies pass through secret-scrub.ts.
 */
export function createKnowledgeService(deps: KnowledgeServiceDeps) {
  const { config, clock } = deps;
  const loaded = loadedIndex({ logsDir: config.logsDir, clock });
  const posture = repairPosturePort();
  const scrub = secretScrub(deps.secrets);
  const read = { config, clock, loaded, scrub };
  const { summary, knowledgeStats } = knowledgeSummary({ ...read, posture });

  return {
    load: loaded.load,
    refresh: indexRefresh({ config, clock, logger: deps.logger, invalidator: deps.invalidator, loaded }),
    /** The latest knowledge pack (null when there is none), read once per version of the file. */
    latestPack: latestPackReader(config.knowledgePackDir),
    current: loaded.current,
    summary,
    query: knowledgeQuery({ ...read, posture }),
    exportDocs: knowledgeExport(read),
    knowledgeStats,
    /** The repair loop reports its posture through this (it is built after the service). */
    attachRepairPosture(reader: () => Promise<RepairPosture | null>) {
      posture.attach(reader);
    },
    config,
  };
}

export type KnowledgeService = ReturnType<typeof createKnowledgeService>;
