import type { AppConfig } from '../config/types.js';
import type { HandlerInput } from '../tasks/handler-types.js';
import type { RepairLoop } from './repair-loop.js';
import { createKnowledgeService, type KnowledgeService } from './service.js';

/** What the doc-sync and doc-change handlers work through. */
export interface KnowledgePorts {
  knowledge: KnowledgeService;
  /** Null outside a running service: doc changes are then buffered without admitting repairs. */
  repairLoop: RepairLoop | null;
}

export type ResolveKnowledgePorts = (config: AppConfig, input: HandlerInput) => KnowledgePorts;

/**
 * Ports for a handler run outside the composed service (the static handler table, unit tests):
 * a knowledge service over the persisted index with nothing cached to invalidate, and no repair
 * loop. The service composition (src/app.ts) replaces them with its live ports.
 */
export const standaloneKnowledgePorts: ResolveKnowledgePorts = (config, input) => ({
  knowledge: createKnowledgeService({
    config,
    clock: input.clock,
    logger: input.logger,
    invalidator: { invalidate: async () => undefined },
  }),
  repairLoop: null,
});
