import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { analyzeDoc, INDEXER_VERSION } from './analyze-doc.js';
import { describedFilesOf, type KnowledgePaths } from './described-files.js';
import { assertConfiguredPath } from '../workspace/configured-folder.js';
import { readScopedFile } from '../worker-sdk/scoped-file.js';
import { DOC_WALK_LIMITS, walkDocs } from './docs-walk.js';
import { gitHeadCommit } from './git-head.js';
import type { DescribedFile, DocChanges, IndexedDoc, KnowledgeIndex } from './index-model.js';

export interface BuildOptions {
  docsPath: string;
  workspaceRoot: string;
  now: Date;
}

export interface BuildOutcome {
  index: KnowledgeIndex;
  changed: boolean;
}

const MAX_DESCRIBED_FILES = 5000;

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Workspace files the docs describe, each once. */
function describedPaths(docs: IndexedDoc[], paths: KnowledgePaths): string[] {
  const all = new Set<string>();
  for (const doc of docs) for (const path of describedFilesOf(doc, paths)) all.add(path);
  return [...all].sort().slice(0, MAX_DESCRIBED_FILES);
}

async function statDescribed(workspaceRoot: string, paths: string[]): Promise<DescribedFile[]> {
  return Promise.all(
    paths.map(async (path) => {
      try {
        const info = await stat(resolve(workspaceRoot, path));
        return { path, exists: info.isFile(), mtimeMs: info.isFile() ? info.mtimeMs : null };
      } catch {
        return { path, exists: false, mtimeMs: null };
      }
    }),
  );
}

function sameDescribed(a: DescribedFile[], b: DescribedFile[]): boolean {
  return a.length === b.length && a.every((f, i) => f.path === b[i]!.path && f.exists === b[i]!.exists && f.mtimeMs === b[i]!.mtimeMs);
}

/**
 * Brings the index up to date with the docs folder, incrementally: a doc whose size and mtime
 * are unchanged is reused without reading it; a doc read again whose content hash is unchanged
 * keeps its analysis; only new or changed content is analysed. Described workspace files are
 * re-stated every pass (cheap), since a source edit makes the doc describing it stale.
 */
export async function buildIndex(previous: KnowledgeIndex | null, options: BuildOptions): Promise<BuildOutcome> {
  const { docsPath, workspaceRoot, now } = options;
  const usable = previous && previous.indexerVersion === INDEXER_VERSION ? previous : null;
  const before = new Map((usable?.docs ?? []).map((d) => [d.path, d]));
  // Checked at every pass: a docs folder swapped for a link would index (and export) what it points to.
  assertConfiguredPath(docsPath, 'docs folder', { workspaceRoot });
  const walk = await walkDocs(docsPath);
  const changes: DocChanges = { added: [], modified: [], removed: [] };
  const docs: IndexedDoc[] = [];
  let reindexed = 0;
  let reused = 0;

  for (const file of walk.files) {
    const old = before.get(file.path);
    if (old && old.bytes === file.size && old.mtimeMs === file.mtimeMs) {
      docs.push(old);
      reused += 1;
      continue;
    }
    // A doc replaced by a link (or removed) between the walk and the read is not read: the next pass sees it.
    const read = readScopedFile(docsPath, file.path, { maxBytes: DOC_WALK_LIMITS.maxFileBytes });
    if (!read.ok) continue;
    const content = read.content.toString('utf8');
    const hash = sha256(content);
    if (old && old.hash === hash) {
      docs.push({ ...old, mtimeMs: file.mtimeMs, bytes: file.size });
      reused += 1;
      continue;
    }
    (old ? changes.modified : changes.added).push(file.path);
    reindexed += 1;
    docs.push({
      path: file.path,
      hash,
      bytes: file.size,
      mtimeMs: file.mtimeMs,
      indexedAt: now.toISOString(),
      indexerVersion: INDEXER_VERSION,
      ...analyzeDoc(file.path, content),
    });
  }
  const present = new Set(docs.map((d) => d.path));
  for (const path of before.keys()) if (!present.has(path)) changes.removed.push(path);

  const described = await statDescribed(workspaceRoot, describedPaths(docs, { docsPath, workspaceRoot }));
  const commit = walk.exists ? await gitHeadCommit(docsPath) : null;
  const docsChanged = changes.added.length + changes.modified.length + changes.removed.length > 0;
  const mtimesChanged = usable !== null && docs.some((d) => before.get(d.path)?.mtimeMs !== d.mtimeMs);
  const changed =
    usable === null ||
    docsChanged ||
    mtimesChanged ||
    usable.commit !== commit ||
    usable.docsFolderExists !== walk.exists ||
    !sameDescribed(usable.described, described);

  const index: KnowledgeIndex = {
    version: 1,
    indexerVersion: INDEXER_VERSION,
    generation: (previous?.generation ?? 0) + (changed ? 1 : 0),
    builtAt: changed || !usable ? now.toISOString() : usable.builtAt,
    commit,
    docsFolderExists: walk.exists,
    docs,
    described,
    discovered: { files: walk.files.length + walk.oversized, oversized: walk.oversized, truncated: walk.truncated, skipped: walk.skipped },
    lastRefresh: { at: now.toISOString(), reindexed, reused, changes },
  };
  return { index, changed };
}
