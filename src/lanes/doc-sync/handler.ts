import { join } from 'node:path';
import { displayPath } from '../../common/display-path.js';
import { packDrift, regeneratePack } from '../../knowledge/pack-builder.js';
import type { KnowledgeConfig, KnowledgeService } from '../../knowledge/service.js';
import type { StateHandler } from '../../runtime/handler-types.js';
import { failure } from '../shared/handler-outcome.js';

export interface DocSyncContext extends KnowledgeConfig {
  workspaceRoot: string;
  /** The knowledge index the service serves (refreshed here, so queries see the new docs). */
  knowledge: KnowledgeService;
}

/**
 * doc-sync: refreshes the knowledge index (incrementally) and, when the latest knowledge pack no
 * longer matches the docs (or there is none), writes and verifies the next pack version. An
 * absent docs folder is a normal, empty result.
 */
export const docSync: StateHandler<DocSyncContext> = async (state, config, input) => {
  const { knowledge } = config;
  const { index } = await knowledge.refresh();
  if (!index.docsFolderExists) {
    return {
      status: 'completed',
      result: {
        filesIndexed: 0,
        changeDetected: false,
        knowledgePackGenerated: false,
        note: `docsPath ${displayPath(config.docsPath, config)} does not exist; nothing to index`,
      },
    };
  }
  const latest = await knowledge.latestPack();
  const drift = packDrift(latest, index.docs);
  const changeDetected = drift.added.length + drift.modified.length + drift.removed.length > 0;
  const generate = index.docs.length > 0 && (changeDetected || latest === null);
  let pack: Record<string, unknown> = {};
  if (generate) {
    const { written, verification } = await regeneratePack(index, config, input.clock.now(), { source: 'doc-sync', runId: input.runId });
    if (!verification.verified) return failure(`knowledge pack v${written.version} did not verify: ${verification.summary}`);
    pack = { knowledgePackPath: displayPath(written.path, config), knowledgePackVersion: written.version, packHash: written.packHash, verification };
  }
  const paths = index.docs.map((d) => d.path);
  return {
    status: 'completed',
    result: {
      filesIndexed: index.docs.length,
      changeDetected,
      knowledgePackGenerated: generate,
      ...pack,
      added: drift.added.length,
      modified: drift.modified.length,
      removed: drift.removed.length,
      indexGeneration: index.generation,
      latestPackPath: displayPath(join(config.knowledgePackDir, 'latest.json'), config),
      oversizedSkipped: index.discovered.oversized,
      truncated: index.discovered.truncated,
      skipped: index.discovered.skipped ?? [],
    },
    // Only a changed doc list is written back; an unchanged one would rewrite the state for nothing.
    ...(sameList(state.docsIndexed, paths) ? {} : { stateUpdate: (s) => ({ ...s, docsIndexed: paths }) }),
  };
};

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}
