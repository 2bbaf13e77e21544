import { describedFilesOf, type KnowledgePaths } from './described-files.js';
import type { IndexedDoc, KnowledgeIndex } from './index-model.js';

/**
 * Deterministic diagnostics over the index: freshness, provenance, contradiction signals,
 * coverage and the three graphs. Pure functions of (index, now[, docs in scope]); nothing here
 * reads files or asks a model.
 */

export type FreshnessStatus = 'fresh' | 'aging' | 'stale';

/** A doc not touched for this long is `aging` (unless a described file makes it `stale`). */
export const AGING_AFTER_MS = 90 * 24 * 3600 * 1000;
/** File systems round mtimes; a described file newer by less than this is not drift. */
const MTIME_TOLERANCE_MS = 1000;
const MAX_GRAPH_NODES = 500;
const MAX_GRAPH_EDGES = 1000;
const MAX_LISTED = 50;

export interface DocFreshness {
  path: string;
  status: FreshnessStatus;
  ageDays: number;
  modifiedAt: string;
  /** Described workspace files changed after the doc, newest lag first. */
  newerDescribedFiles: Array<{ path: string; lagMs: number }>;
  describedFileCount: number;
}

export interface ContradictionSignal {
  key: string;
  severity: 'warning';
  docCount: number;
  values: Array<{ value: string; statements: Array<{ path: string; line: number; statement: string }> }>;
}

export interface Graph {
  nodes: Array<{ id: string; kind: string; label: string; status?: string }>;
  edges: Array<{ from: string; to: string; relation: string; detail?: string }>;
  nodeCount: number;
  edgeCount: number;
  truncated: boolean;
}

export function docFreshness(index: KnowledgeIndex, doc: IndexedDoc, now: Date, paths: KnowledgePaths): DocFreshness {
  const described = new Map(index.described.map((f) => [f.path, f]));
  const mine = describedFilesOf(doc, paths).flatMap((p) => {
    const f = described.get(p);
    return f && f.exists && f.mtimeMs !== null ? [f] : [];
  });
  const newer = mine
    .filter((f) => f.mtimeMs! - doc.mtimeMs > MTIME_TOLERANCE_MS)
    .map((f) => ({ path: f.path, lagMs: Math.round(f.mtimeMs! - doc.mtimeMs) }))
    .sort((a, b) => b.lagMs - a.lagMs || (a.path < b.path ? -1 : 1));
  const ageMs = Math.max(0, now.getTime() - doc.mtimeMs);
  const status: FreshnessStatus = newer.length > 0 ? 'stale' : ageMs > AGING_AFTER_MS ? 'aging' : 'fresh';
  return {
    path: doc.path,
    status,
    ageDays: Math.round((ageMs / 86_400_000) * 10) / 10,
    modifiedAt: new Date(doc.mtimeMs).toISOString(),
    newerDescribedFiles: newer.slice(0, MAX_LISTED),
    describedFileCount: mine.length,
  };
}

export function freshnessOf(index: KnowledgeIndex, docs: IndexedDoc[], now: Date, paths: KnowledgePaths) {
  const perDoc = docs.map((d) => docFreshness(index, d, now, paths));
  const count = (s: FreshnessStatus) => perDoc.filter((f) => f.status === s).length;
  const ages = perDoc.map((f) => f.ageDays);
  return {
    status: count('stale') > 0 ? 'stale' : count('aging') > 0 ? 'aging' : 'fresh',
    docCount: perDoc.length,
    fresh: count('fresh'),
    aging: count('aging'),
    stale: count('stale'),
    oldestAgeDays: ages.length ? Math.max(...ages) : null,
    newestAgeDays: ages.length ? Math.min(...ages) : null,
    indexAgeMs: Math.max(0, now.getTime() - new Date(index.lastRefresh.at).getTime()),
    staleDocs: perDoc.filter((f) => f.status === 'stale').slice(0, MAX_LISTED),
    docs: perDoc.slice(0, MAX_LISTED * 4),
  };
}

export function provenanceOf(index: KnowledgeIndex, docs: IndexedDoc[]) {
  return {
    indexerVersion: index.indexerVersion,
    commit: index.commit,
    source: index.commit ? 'git' : 'mtime',
    builtAt: index.builtAt,
    generation: index.generation,
    docs: docs.slice(0, MAX_LISTED * 4).map((d) => ({
      path: d.path,
      hash: d.hash,
      modifiedAt: new Date(d.mtimeMs).toISOString(),
      commit: index.commit,
      indexedAt: d.indexedAt,
      indexerVersion: d.indexerVersion,
    })),
  };
}

/**
 * One signal per fact key stated with two or more different values in two or more docs. A key
 * repeated with one value everywhere is agreement, not a signal; differing values inside a single
 * doc (a table of examples) are not counted either.
 */
export function contradictionsOf(docs: IndexedDoc[]): ContradictionSignal[] {
  type Statement = { path: string; line: number; statement: string };
  const byKey = new Map<string, Map<string, Statement[]>>();
  for (const doc of docs) {
    for (const fact of doc.facts) {
      const values = byKey.get(fact.key) ?? new Map<string, Statement[]>();
      byKey.set(fact.key, values);
      const statements = values.get(fact.value) ?? [];
      values.set(fact.value, statements);
      statements.push({ path: doc.path, line: fact.line, statement: fact.statement });
    }
  }
  const signals: ContradictionSignal[] = [];
  for (const [key, values] of byKey) {
    if (values.size < 2) continue;
    const docsByValue = [...values.values()].map((s) => new Set(s.map((x) => x.path)));
    const allDocs = new Set(docsByValue.flatMap((s) => [...s]));
    // Conflicting only when some value is stated in a doc that does not also state the other.
    const distinctSources = docsByValue.some((a, i) => docsByValue.some((b, j) => i !== j && [...a].some((p) => !b.has(p))));
    if (allDocs.size < 2 || !distinctSources) continue;
    signals.push({
      key,
      severity: 'warning',
      docCount: allDocs.size,
      values: [...values.entries()]
        .sort((a, b) => (a[0] < b[0] ? -1 : 1))
        .map(([value, statements]) => ({ value, statements: statements.slice(0, 20) })),
    });
  }
  return signals.sort((a, b) => b.docCount - a.docCount || (a.key < b.key ? -1 : 1));
}

export function coverageOf(index: KnowledgeIndex, docs: IndexedDoc[]) {
  const docPaths = new Set(index.docs.map((d) => d.path));
  const described = new Map(index.described.map((f) => [f.path, f]));
  const brokenLinks: Array<{ path: string; target: string; line: number }> = [];
  for (const doc of docs) {
    for (const link of doc.links) {
      if (link.kind === 'doc' && link.resolved !== null && !docPaths.has(link.resolved)) {
        brokenLinks.push({ path: doc.path, target: link.target, line: link.line });
      }
    }
  }
  const byFolder: Record<string, number> = {};
  for (const doc of docs) {
    const folder = doc.path.includes('/') ? doc.path.slice(0, doc.path.indexOf('/')) : '.';
    byFolder[folder] = (byFolder[folder] ?? 0) + 1;
  }
  const indexable = index.discovered.files - index.discovered.oversized;
  return {
    discoveredFiles: index.discovered.files,
    indexedDocs: docs.length,
    skippedOversized: index.discovered.oversized,
    truncated: index.discovered.truncated,
    ratio: index.discovered.files === 0 ? 1 : Math.round((index.docs.length / Math.max(1, indexable + index.discovered.oversized)) * 1000) / 1000,
    docsWithSummary: docs.filter((d) => d.summary !== '').length,
    docsWithConcepts: docs.filter((d) => d.concepts.length > 0).length,
    docsWithoutHeadings: docs.filter((d) => d.headings.length === 0).map((d) => d.path).slice(0, MAX_LISTED),
    describedFiles: index.described.length,
    missingDescribedFiles: [...described.values()].filter((f) => !f.exists).map((f) => f.path).slice(0, MAX_LISTED),
    brokenLinks: brokenLinks.slice(0, MAX_LISTED),
    brokenLinkCount: brokenLinks.length,
    byFolder,
  };
}

/** Builds one bounded graph: nodes once each, edges only between known nodes. */
class GraphBuilder {
  private readonly ids = new Set<string>();
  private readonly nodes: Graph['nodes'] = [];
  private readonly edges: Graph['edges'] = [];
  private truncated = false;

  /** False when the node bound is reached (the node was not added). */
  add(node: Graph['nodes'][number]): boolean {
    if (this.ids.has(node.id)) return true;
    if (this.nodes.length >= MAX_GRAPH_NODES) {
      this.truncated = true;
      return false;
    }
    this.ids.add(node.id);
    this.nodes.push(node);
    return true;
  }

  link(edge: Graph['edges'][number]): void {
    if (!this.ids.has(edge.from) || !this.ids.has(edge.to)) return;
    if (this.edges.length >= MAX_GRAPH_EDGES) {
      this.truncated = true;
      return;
    }
    this.edges.push(edge);
  }

  done(): Graph {
    return { nodes: this.nodes, edges: this.edges, nodeCount: this.nodes.length, edgeCount: this.edges.length, truncated: this.truncated };
  }
}

/** Docs → indexer version and commit they were indexed at, and doc → doc links. */
export function provenanceGraph(index: KnowledgeIndex, docs: IndexedDoc[]): Graph {
  const g = new GraphBuilder();
  const indexer = `indexer:${index.indexerVersion}`;
  g.add({ id: indexer, kind: 'indexer', label: index.indexerVersion });
  const commit = index.commit ? `commit:${index.commit}` : null;
  if (commit) g.add({ id: commit, kind: 'commit', label: index.commit!.slice(0, 12) });
  for (const doc of docs) {
    const id = `doc:${doc.path}`;
    if (!g.add({ id, kind: 'doc', label: doc.path })) break;
    g.link({ from: id, to: indexer, relation: 'indexed-by', detail: doc.indexedAt });
    if (commit) g.link({ from: id, to: commit, relation: 'at-commit' });
  }
  for (const doc of docs) {
    for (const link of doc.links) {
      if (link.kind === 'doc' && link.resolved) g.link({ from: `doc:${doc.path}`, to: `doc:${link.resolved}`, relation: 'links-to' });
    }
  }
  return g.done();
}

/** Docs → the fact keys they state (with the value), and doc ↔ doc conflicts per key. */
export function contradictionGraph(signals: ContradictionSignal[]): Graph {
  const g = new GraphBuilder();
  for (const signal of signals) {
    const factId = `fact:${signal.key}`;
    if (!g.add({ id: factId, kind: 'fact', label: signal.key, status: 'conflicting' })) break;
    const byValue = signal.values.map((v) => ({ value: v.value, paths: [...new Set(v.statements.map((s) => s.path))] }));
    for (const { value, paths } of byValue) {
      for (const path of paths) {
        g.add({ id: `doc:${path}`, kind: 'doc', label: path });
        g.link({ from: `doc:${path}`, to: factId, relation: 'states', detail: value });
      }
    }
    for (let i = 0; i < byValue.length; i += 1) {
      for (let j = i + 1; j < byValue.length; j += 1) {
        for (const a of byValue[i]!.paths) {
          for (const b of byValue[j]!.paths) {
            if (a !== b) g.link({ from: `doc:${a}`, to: `doc:${b}`, relation: 'contradicts', detail: signal.key });
          }
        }
      }
    }
  }
  return g.done();
}

/** Docs (with their freshness) → the workspace files they describe, each edge saying if the file is newer. */
export function freshnessGraph(index: KnowledgeIndex, perDoc: DocFreshness[], docs: IndexedDoc[], paths: KnowledgePaths): Graph {
  const g = new GraphBuilder();
  const status = new Map(perDoc.map((f) => [f.path, f]));
  const described = new Map(index.described.map((f) => [f.path, f]));
  for (const doc of docs) {
    const f = status.get(doc.path);
    const id = `doc:${doc.path}`;
    if (!g.add({ id, kind: 'doc', label: doc.path, status: f?.status ?? 'fresh' })) break;
    const newer = new Map((f?.newerDescribedFiles ?? []).map((n) => [n.path, n.lagMs]));
    for (const path of describedFilesOf(doc, paths)) {
      const file = described.get(path);
      if (!file?.exists) continue;
      g.add({ id: `file:${path}`, kind: 'file', label: path });
      const lag = newer.get(path);
      g.link({ from: id, to: `file:${path}`, relation: lag === undefined ? 'describes' : 'describes-stale', ...(lag === undefined ? {} : { detail: `file newer by ${lag} ms` }) });
    }
  }
  return g.done();
}
