/**
 * The knowledge query: ranked search over the held index (MiniSearch, rebuilt once per index
 * generation and kept by this role), with diagnostics scoped to the matching docs (`meta`, every
 * contradiction touching one of them included) and facts of the whole index (`runtime`), scrubbed
 * of configured secrets.
 */

import type { Clock } from '../clock.js';
import type { KnowledgePaths } from './described-files.js';
import { contradictionGraph, contradictionsOf } from './diagnostics.js';
import type { KnowledgeIndex } from './index-model.js';
import { diagnosticsFor, indexFacts } from './index-report.js';
import type { LoadedIndex } from './loaded-index.js';
import type { RepairPosturePort } from './repair-posture-port.js';
import { DocSearch } from './search.js';
import type { Scrub } from './secret-scrub.js';

export interface KnowledgeQuery {
  query: string;
  limit?: number;
  filter?: { paths?: string[] };
}

export interface KnowledgeQueryDeps {
  config: KnowledgePaths;
  clock: Clock;
  loaded: LoadedIndex;
  posture: RepairPosturePort;
  scrub: Scrub;
}

export function knowledgeQuery(deps: KnowledgeQueryDeps) {
  const { config, clock, loaded, scrub } = deps;
  let search: { generation: number; engine: DocSearch } | null = null;

  function searchFor(idx: KnowledgeIndex): DocSearch {
    if (!search || search.generation !== idx.generation) search = { generation: idx.generation, engine: new DocSearch(idx.docs) };
    return search.engine;
  }

  /** Ranked search plus diagnostics scoped to the matching docs (`meta`) and the whole index (`runtime`). */
  return async function query(request: KnowledgeQuery) {
    const idx = await loaded.current();
    const limit = request.limit ?? 10;
    const { hits, total } = searchFor(idx).search(request.query, { limit, paths: request.filter?.paths });
    const matched = new Set(hits.map((h) => h.path));
    const scoped = idx.docs.filter((d) => matched.has(d.path));
    const d = diagnosticsFor(idx, scoped, clock.now(), config);
    // A contradiction touching a matched doc is relevant even when the other doc did not match.
    const touching = contradictionsOf(idx.docs).filter((s) => s.values.some((v) => v.statements.some((st) => matched.has(st.path))));
    const repairLoop = await deps.posture.read();
    return scrub({
      query: request.query,
      total,
      results: hits,
      meta: {
        freshness: d.freshness,
        provenance: d.provenance,
        contradictionSignals: touching,
        graphs: { ...d.graphs, contradictions: contradictionGraph(touching) },
        repairLoop,
      },
      runtime: {
        index: indexFacts(idx),
        signals: {
          staleness: { staleDocs: d.freshness.stale },
          contradictions: { count: touching.length },
          coverage: { matchedDocs: scoped.length, indexedDocs: idx.docs.length },
        },
        repairLoop,
      },
    });
  };
}
