import type { KnowledgeComposition } from '../knowledge/compose.js';
import { bindStateHandler } from '../runtime/handler-types.js';
import type { LaneDefinition } from '../runtime/lanes.js';
import { docChange } from './doc-change/handler.js';
import { docChangeType } from './doc-change/definition.js';
import { docSync } from './doc-sync/handler.js';
import { docSyncType } from './doc-sync/definition.js';
import { driftRepairType } from './drift-repair/definition.js';

/**
 * The lanes over the knowledge part: doc-sync and doc-change in-process, bound to the index
 * service and the repair loop; drift-repair's worker input and outcome. They live with the other
 * lanes so src/knowledge/ stays below them (it never imports a lane).
 */
export function knowledgeLanes({ paths, service, repairLoop }: Pick<KnowledgeComposition, 'paths' | 'service' | 'repairLoop'>): LaneDefinition[] {
  return [
    { type: docSyncType.type, handler: bindStateHandler(docSync, { ...paths, knowledge: service }) },
    { type: docChangeType.type, handler: bindStateHandler(docChange, { ...paths, knowledge: service, repairLoop }) },
    // drift-repair runs as a worker: it is told where the docs, packs and index live, since a
    // worker cannot read the configuration.
    { type: driftRepairType.type, workerInput: () => ({ __knowledge: { docsPath: paths.docsPath, knowledgePackDir: paths.knowledgePackDir, logsDir: paths.logsDir } }), afterFinish: repairLoop.onRunFinished },
  ];
}
