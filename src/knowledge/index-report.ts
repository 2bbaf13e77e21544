/**
 * The index as the knowledge summary and query report it: the deterministic diagnostics of a set
 * of docs (freshness, provenance, contradiction signals, coverage and their graphs, from
 * diagnostics.ts) and the facts of the index itself (entries, chunks, concepts, generation, the
 * last refresh). Pure functions of the index, the docs and the time.
 */

import type { KnowledgePaths } from './described-files.js';
import {
  contradictionGraph,
  contradictionsOf,
  coverageOf,
  freshnessGraph,
  freshnessOf,
  provenanceGraph,
  provenanceOf,
} from './diagnostics.js';
import type { IndexedDoc, KnowledgeIndex } from './index-model.js';

/** The diagnostics of `docs` (all of the index's, or the ones a query matched). */
export function diagnosticsFor(idx: KnowledgeIndex, docs: IndexedDoc[], now: Date, paths: KnowledgePaths) {
  const freshness = freshnessOf(idx, docs, now, paths);
  const contradictions = contradictionsOf(docs);
  return {
    freshness,
    provenance: provenanceOf(idx, docs),
    contradictionSignals: contradictions,
    coverage: coverageOf(idx, docs),
    graphs: {
      provenance: provenanceGraph(idx, docs),
      contradictions: contradictionGraph(contradictions),
      freshness: freshnessGraph(idx, freshness.docs, docs, paths),
    },
  };
}

export function indexFacts(idx: KnowledgeIndex) {
  return {
    indexedEntries: idx.docs.length,
    chunkCount: idx.docs.reduce((n, d) => n + d.chunks.length, 0),
    conceptCount: new Set(idx.docs.flatMap((d) => d.concepts)).size,
    generation: idx.generation,
    indexerVersion: idx.indexerVersion,
    builtAt: idx.builtAt,
    lastRefreshAt: idx.lastRefresh.at,
    lastRefresh: {
      reindexed: idx.lastRefresh.reindexed,
      reused: idx.lastRefresh.reused,
      added: idx.lastRefresh.changes.added.length,
      modified: idx.lastRefresh.changes.modified.length,
      removed: idx.lastRefresh.changes.removed.length,
    },
    docsFolderExists: idx.docsFolderExists,
  };
}
