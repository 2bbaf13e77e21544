import { isAbsolute, posix, win32 } from 'node:path';
import { appendDocChanges, docChangeBufferPath, DOC_CHANGE_THRESHOLD } from '../../knowledge/doc-change-buffer.js';
import { displayPath } from '../../common/display-path.js';
import type { RepairLoop } from '../../knowledge/repair-loop.js';
import type { KnowledgeService } from '../../knowledge/service.js';
import type { StateHandler } from '../../runtime/handler-types.js';
import { failure } from '../shared/handler-outcome.js';

/** A doc path relative to docsPath in `/` form, or null when it is absolute or climbs out. */
export function normalizeDocPath(raw: string): string | null {
  if (raw.includes('\0') || isAbsolute(raw) || win32.isAbsolute(raw)) return null;
  const normalized = posix.normalize(raw.replace(/\\/g, '/'));
  if (normalized === '.' || normalized === '..' || normalized.startsWith('../')) return null;
  return normalized.replace(/^\.\//, '');
}

export interface DocChangeContext {
  logsDir: string;
  workspaceRoot: string;
  knowledge: KnowledgeService;
  /** Null outside a running service: doc changes are then buffered without admitting repairs. */
  repairLoop: RepairLoop | null;
}

/**
 * doc-change (internal, fed by the doc watcher): records changed doc paths in the buffer and
 * refreshes the knowledge index. In the running service the repair loop then decides, under the
 * doc-repair lock, whether the 25-path threshold admits a drift-repair (`repairDecision`);
 * outside it the paths are only buffered.
 */
export const docChange: StateHandler<DocChangeContext> = async (_state, config, input) => {
  const raw = input.payload.paths;
  if (!Array.isArray(raw) || !raw.every((p) => typeof p === 'string')) {
    return failure('doc-change payload.paths must be an array of strings');
  }
  const accepted: string[] = [];
  const rejectedPaths: string[] = [];
  for (const path of raw as string[]) {
    const normalized = normalizeDocPath(path);
    if (normalized === null) rejectedPaths.push(path);
    else accepted.push(normalized);
  }
  const { knowledge, repairLoop } = config;
  let buffer;
  let repairDecision = null;
  if (repairLoop) {
    ({ buffer, decision: repairDecision } = await repairLoop.recordChanges(accepted));
  } else {
    buffer = await appendDocChanges(config, accepted, input.clock.now());
    await knowledge.refresh();
  }
  return {
    status: 'completed',
    result: {
      bufferedPaths: buffer.pending.length,
      thresholdReached: buffer.pending.length >= DOC_CHANGE_THRESHOLD,
      threshold: DOC_CHANGE_THRESHOLD,
      pendingPaths: buffer.pending,
      bufferPath: displayPath(docChangeBufferPath(config), config),
      ...(repairDecision ? { repairDecision } : {}),
      ...(rejectedPaths.length > 0 ? { rejectedPaths } : {}),
    },
  };
};
