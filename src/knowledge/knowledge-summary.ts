/**
 * The knowledge summary and the knowledge counts: the public summary of the whole index
 * (status, deterministic diagnostics, runtime facts, the repair loop's posture; doc paths relative
 * to docsPath, quoted statements scrubbed of configured secrets) and the counts the extended
 * health's `dependencies.knowledge` and the knowledge incident signals read.
 */

import type { Clock } from '../clock.js';
import type { KnowledgePaths } from './described-files.js';
import { contradictionsOf, freshnessOf } from './diagnostics.js';
import { diagnosticsFor, indexFacts } from './index-report.js';
import type { LoadedIndex } from './loaded-index.js';
import type { RepairPosturePort } from './repair-posture-port.js';
import type { Scrub } from './secret-scrub.js';

export interface KnowledgeSummaryDeps {
  config: KnowledgePaths;
  clock: Clock;
  loaded: LoadedIndex;
  posture: RepairPosturePort;
  scrub: Scrub;
}

export function knowledgeSummary(deps: KnowledgeSummaryDeps) {
  const { config, clock, loaded, scrub } = deps;

  /** Counts for `dependencies.knowledge` of the extended health (and knowledge incident signals). */
  async function knowledgeStats(): Promise<{
    indexedEntries: number;
    conceptCount: number;
    staleDocs: number;
    contradictionCount: number;
    generation: number;
    lastRefreshAt: string | null;
  }> {
    const idx = await loaded.load();
    if (!idx) return { indexedEntries: 0, conceptCount: 0, staleDocs: 0, contradictionCount: 0, generation: 0, lastRefreshAt: null };
    const facts = indexFacts(idx);
    return {
      indexedEntries: facts.indexedEntries,
      conceptCount: facts.conceptCount,
      staleDocs: freshnessOf(idx, idx.docs, clock.now(), config).stale,
      contradictionCount: contradictionsOf(idx.docs).length,
      generation: facts.generation,
      lastRefreshAt: facts.lastRefreshAt,
    };
  }

  /**
   * The public summary: deterministic diagnostics and runtime facts, doc paths relative to
   * docsPath. Statements quoted from docs pass through `scrub`, so a configured secret pasted
   * into a doc never reaches the public body.
   */
  async function summary() {
    const idx = await loaded.current();
    const d = diagnosticsFor(idx, idx.docs, clock.now(), config);
    const repairLoop = await deps.posture.read();
    return scrub({
      status: !idx.docsFolderExists ? 'empty' : d.freshness.stale > 0 || d.contradictionSignals.length > 0 ? 'attention' : 'ok',
      generatedAt: clock.now().toISOString(),
      diagnostics: {
        freshness: d.freshness,
        provenance: d.provenance,
        contradictionSignals: d.contradictionSignals,
        graphs: d.graphs,
      },
      runtime: {
        index: indexFacts(idx),
        coverage: d.coverage,
        freshness: { status: d.freshness.status, fresh: d.freshness.fresh, aging: d.freshness.aging, stale: d.freshness.stale, indexAgeMs: d.freshness.indexAgeMs },
        signals: {
          coverage: { ratio: d.coverage.ratio, brokenLinks: d.coverage.brokenLinkCount, missingDescribedFiles: d.coverage.missingDescribedFiles.length },
          staleness: { staleDocs: d.freshness.stale, agingDocs: d.freshness.aging },
          contradictions: { count: d.contradictionSignals.length, keys: d.contradictionSignals.map((s) => s.key).slice(0, 50) },
        },
        graphs: {
          provenance: { nodeCount: d.graphs.provenance.nodeCount, edgeCount: d.graphs.provenance.edgeCount },
          contradictions: { nodeCount: d.graphs.contradictions.nodeCount, edgeCount: d.graphs.contradictions.edgeCount },
          freshness: { nodeCount: d.graphs.freshness.nodeCount, edgeCount: d.graphs.freshness.edgeCount },
        },
        repairLoop,
      },
    });
  }

  return { summary, knowledgeStats };
}
