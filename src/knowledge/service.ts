import { readScopedFile } from '../worker-sdk/scoped-file.js';
import { assertConfiguredPath } from '../workspace/configured-folder.js';
import { DOC_WALK_LIMITS } from './docs-walk.js';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { CacheTags, type CacheInvalidator } from '../domain/cache-invalidation.js';
import { buildIndex } from './build-index.js';
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
import { readKnowledgeIndex, writeKnowledgeIndex } from './index-file.js';
import { emptyIndex, type DocChanges, type IndexedDoc, type KnowledgeIndex } from './index-model.js';
import { INDEXER_VERSION } from './analyze-doc.js';
import { workspacePathOf } from './pack-builder.js';
import { freshShared } from '../domain/fresh-share.js';
import { latestPackReader } from './latest-pack.js';
import { DocSearch } from './search.js';

export interface KnowledgeConfig extends KnowledgePaths {
  logsDir: string;
  knowledgePackDir: string;
}

/** The repair loop's posture as the knowledge surfaces report it (src/knowledge/repair-loop.ts). */
export interface RepairPosture {
  status: 'idle' | 'buffering' | 'repairing' | 'cooldown';
  threshold: number;
  pendingPaths: number;
  activeRepairs: number;
  lastRepair: { repairId: string; status: string; at: string } | null;
  cooldownUntil: string | null;
}

export interface KnowledgeQuery {
  query: string;
  limit?: number;
  filter?: { paths?: string[] };
}

export interface KnowledgeServiceDeps {
  config: KnowledgeConfig;
  clock: Clock;
  logger: Logger;
  invalidator: CacheInvalidator;
  /** Values never to appear in an export (configured keys, the webhook secret). */
  secrets?: string[];
}

export interface RefreshOutcome {
  index: KnowledgeIndex;
  changed: boolean;
  changes: DocChanges;
}

const MAX_EXPORT_BYTES = 32 * 1024 * 1024;

/**
 * The knowledge index as a service: loads the persisted index, refreshes it incrementally,
 * answers the summary, query and export, and invalidates the knowledge cache tag whenever the
 * index changes. One refresh runs at a time in this process; the persisted file is replaced
 * atomically, so another process only ever reads a whole index.
 */
export function createKnowledgeService(deps: KnowledgeServiceDeps) {
  const { config, clock } = deps;
  let index: KnowledgeIndex | null = null;
  let search: { generation: number; engine: DocSearch } | null = null;
  let repairPosture: () => Promise<RepairPosture | null> = async () => null;

  async function load(): Promise<KnowledgeIndex | null> {
    if (!index) index = await readKnowledgeIndex(config.logsDir);
    return index;
  }

  /**
   * Brings the index up to date with the docs folder; persists and invalidates only on change.
   * Every caller gets a refresh that started after its call, so it sees every change made before
   * it asked. Callers arriving while one runs share the next: four doc-sync runs at once cost two
   * walks of the docs folder, not four in a row.
   */
  const refresh = freshShared(refreshOnce);

  /** The latest knowledge pack (null when there is none), read once per version of the file. */
  const latestPack = latestPackReader(config.knowledgePackDir);

  async function refreshOnce(): Promise<RefreshOutcome> {
    const previous = index ?? (await readKnowledgeIndex(config.logsDir));
    const { index: next, changed } = await buildIndex(previous, { docsPath: config.docsPath, workspaceRoot: config.workspaceRoot, now: clock.now() });
    index = next;
    if (changed) {
      assertConfiguredPath(config.logsDir, 'logs folder', config);
      await writeKnowledgeIndex(config.logsDir, next);
      await deps.invalidator.invalidate([CacheTags.knowledge]);
      deps.logger.info({ generation: next.generation, docs: next.docs.length, ...next.lastRefresh.changes }, 'knowledge index refreshed');
    }
    return { index: next, changed, changes: next.lastRefresh.changes };
  }

  async function current(): Promise<KnowledgeIndex> {
    return (await load()) ?? emptyIndex(clock.now(), INDEXER_VERSION);
  }

  function searchFor(idx: KnowledgeIndex): DocSearch {
    if (!search || search.generation !== idx.generation) search = { generation: idx.generation, engine: new DocSearch(idx.docs) };
    return search.engine;
  }

  function diagnosticsFor(idx: KnowledgeIndex, docs: IndexedDoc[]) {
    const now = clock.now();
    const freshness = freshnessOf(idx, docs, now, config);
    const contradictions = contradictionsOf(docs);
    return {
      freshness,
      provenance: provenanceOf(idx, docs),
      contradictionSignals: contradictions,
      coverage: coverageOf(idx, docs),
      graphs: {
        provenance: provenanceGraph(idx, docs),
        contradictions: contradictionGraph(contradictions),
        freshness: freshnessGraph(idx, freshness.docs, docs, config),
      },
    };
  }

  function indexFacts(idx: KnowledgeIndex) {
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

  /** Counts for `dependencies.knowledge` of the extended health (and knowledge incident signals). */
  async function knowledgeStats(): Promise<{
    indexedEntries: number;
    conceptCount: number;
    staleDocs: number;
    contradictionCount: number;
    generation: number;
    lastRefreshAt: string | null;
  }> {
    const idx = await load();
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
    const idx = await current();
    const d = diagnosticsFor(idx, idx.docs);
    const repairLoop = await repairPosture();
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

  /** Ranked search plus diagnostics scoped to the matching docs (`meta`) and the whole index (`runtime`). */
  async function query(request: KnowledgeQuery) {
    const idx = await current();
    const limit = request.limit ?? 10;
    const { hits, total } = searchFor(idx).search(request.query, { limit, paths: request.filter?.paths });
    const matched = new Set(hits.map((h) => h.path));
    const scoped = idx.docs.filter((d) => matched.has(d.path));
    const d = diagnosticsFor(idx, scoped);
    // A contradiction touching a matched doc is relevant even when the other doc did not match.
    const touching = contradictionsOf(idx.docs).filter((s) => s.values.some((v) => v.statements.some((st) => matched.has(st.path))));
    const repairLoop = await repairPosture();
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
  }

  /** A copy of `value` with every configured secret replaced (a JSON round trip; bodies are JSON anyway). */
  function scrub<T>(value: T): T {
    if (!(deps.secrets ?? []).some((secret) => secret.length >= 4)) return value;
    return JSON.parse(redact(JSON.stringify(value))) as T;
  }

  function redact(text: string): string {
    let out = text;
    for (const secret of deps.secrets ?? []) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
    return out;
  }

  /** Admin export: every indexed doc with its path and current content, configured secrets removed. */
  async function exportDocs() {
    const idx = await current();
    let bytes = 0;
    const docs: Array<Record<string, unknown> & { path: string; content: string }> = [];
    let truncated = false;
    for (const doc of idx.docs) {
      // Read as the index read it: inside the docs folder, no link followed.
      const read = readScopedFile(config.docsPath, doc.path, { maxBytes: DOC_WALK_LIMITS.maxFileBytes });
      if (!read.ok) continue;
      const content = read.content.toString('utf8');
      bytes += content.length;
      if (bytes > MAX_EXPORT_BYTES) {
        truncated = true;
        break;
      }
      docs.push({
        path: doc.path,
        workspacePath: workspacePathOf(config, doc.path),
        title: doc.title,
        hash: doc.hash,
        modifiedAt: new Date(doc.mtimeMs).toISOString(),
        indexedAt: doc.indexedAt,
        concepts: doc.concepts,
        content,
      });
    }
    // Concepts and titles come from the text too: the whole body is scrubbed, not only content.
    return scrub({
      exportedAt: clock.now().toISOString(),
      indexerVersion: idx.indexerVersion,
      generation: idx.generation,
      commit: idx.commit,
      docCount: docs.length,
      truncated,
      docs,
    });
  }

  return {
    load,
    refresh,
    latestPack,
    current,
    summary,
    query,
    exportDocs,
    knowledgeStats,
    /** The repair loop reports its posture through this (it is built after the service). */
    attachRepairPosture(read: () => Promise<RepairPosture | null>) {
      repairPosture = read;
    },
    config,
  };
}

export type KnowledgeService = ReturnType<typeof createKnowledgeService>;
