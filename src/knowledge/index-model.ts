import type { DocAnalysis } from './analyze-doc.js';

/** One indexed doc: its analysis plus where it came from (provenance). */
export interface IndexedDoc extends DocAnalysis {
  /** Relative to docsPath, `/`-separated. */
  path: string;
  /** sha256 hex of the content. */
  hash: string;
  bytes: number;
  /** File modification time when it was indexed. */
  mtimeMs: number;
  indexedAt: string;
  indexerVersion: string;
}

/** A workspace file a doc links to or names: what freshness compares the doc against. */
export interface DescribedFile {
  /** Relative to the workspace root. */
  path: string;
  exists: boolean;
  mtimeMs: number | null;
}

export interface DocChanges {
  added: string[];
  modified: string[];
  removed: string[];
}

/**
 * The persisted knowledge index. `generation` grows by one whenever anything in it changed, so
 * readers (search, cached summary) know when to rebuild.
 */
export interface KnowledgeIndex {
  version: 1;
  indexerVersion: string;
  generation: number;
  builtAt: string;
  /** HEAD commit of the repository holding the docs, when there is one. */
  commit: string | null;
  docsFolderExists: boolean;
  docs: IndexedDoc[];
  described: DescribedFile[];
  /** `skipped`: doc files the walk passed by with the reason (absent in an index written before it was kept). */
  discovered: { files: number; oversized: number; truncated: boolean; skipped?: Array<{ path: string; reason: string }> };
  lastRefresh: { at: string; reindexed: number; reused: number; changes: DocChanges };
}

export function emptyIndex(now: Date, indexerVersion: string): KnowledgeIndex {
  return {
    version: 1,
    indexerVersion,
    generation: 0,
    builtAt: now.toISOString(),
    commit: null,
    docsFolderExists: false,
    docs: [],
    described: [],
    discovered: { files: 0, oversized: 0, truncated: false, skipped: [] },
    lastRefresh: { at: now.toISOString(), reindexed: 0, reused: 0, changes: { added: [], modified: [], removed: [] } },
  };
}
