/**
 * The knowledge index this process holds in memory: the one piece of state the knowledge
 * service's roles share. It is read from the persisted file on first use, replaced by every
 * refresh, and answered as an empty index while there is none yet; the refresh writes it, the
 * summary, query and export only read it.
 */

import type { Clock } from '../clock.js';
import { INDEXER_VERSION } from './analyze-doc.js';
import { readKnowledgeIndex } from './index-file.js';
import { emptyIndex, type KnowledgeIndex } from './index-model.js';

export interface LoadedIndex {
  /** The held index, read from the persisted file when none is held yet; null when there is none. */
  load(): Promise<KnowledgeIndex | null>;
  /** The held (or persisted) index, else an empty one. */
  current(): Promise<KnowledgeIndex>;
  /** What a refresh starts from: the held index, else the persisted one (not held: the refresh holds what it builds). */
  startingPoint(): Promise<KnowledgeIndex | null>;
  /** Holds `next` (a refresh's outcome). */
  replace(next: KnowledgeIndex): void;
}

export function loadedIndex(deps: { logsDir: string; clock: Clock }): LoadedIndex {
  let index: KnowledgeIndex | null = null;

  async function load(): Promise<KnowledgeIndex | null> {
    if (!index) index = await readKnowledgeIndex(deps.logsDir);
    return index;
  }

  return {
    load,
    current: async () => (await load()) ?? emptyIndex(deps.clock.now(), INDEXER_VERSION),
    startingPoint: async () => index ?? (await readKnowledgeIndex(deps.logsDir)),
    replace(next) {
      index = next;
    },
  };
}
