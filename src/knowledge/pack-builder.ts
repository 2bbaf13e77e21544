import { relative, resolve, sep } from 'node:path';
import { readScopedFile } from '../worker-sdk/scoped-file.js';
import { assertConfiguredPath } from '../workspace/configured-folder.js';
import { INDEXER_VERSION } from './analyze-doc.js';
import { DOC_WALK_LIMITS } from './docs-walk.js';
import { sha256 } from './build-index.js';
import type { KnowledgePaths } from './described-files.js';
import type { IndexedDoc, KnowledgeIndex } from './index-model.js';
import { verifyPack, writePack, type KnowledgePack, type PackDoc, type PackVerification, type WrittenPack } from './pack.js';

/** A doc's path relative to the workspace root (the pack's `path`), `/`-separated. */
export function workspacePathOf(paths: KnowledgePaths, docPath: string): string {
  return relative(paths.workspaceRoot, resolve(paths.docsPath, docPath)).split(sep).join('/');
}

/** A doc's text, read without following a link (a doc swapped for one is left out), or null. */
function readDoc(docsPath: string, docPath: string): string | null {
  const read = readScopedFile(docsPath, docPath, { maxBytes: DOC_WALK_LIMITS.maxFileBytes });
  return read.ok ? read.content.toString('utf8') : null;
}

/**
 * The pack's docs from the index, each re-read from disk so the pack carries the text it
 * covers and a hash of exactly that text (a doc removed since indexing is left out).
 */
export async function packDocsFrom(index: KnowledgeIndex, paths: KnowledgePaths): Promise<PackDoc[]> {
  const docs: PackDoc[] = [];
  for (const doc of index.docs) {
    const content = readDoc(paths.docsPath, doc.path);
    if (content === null) continue;
    docs.push({
      path: workspacePathOf(paths, doc.path),
      hash: sha256(content),
      title: doc.title,
      summary: doc.summary,
      concepts: doc.concepts,
      docPath: doc.path,
      headings: doc.headings,
      wordCount: doc.wordCount,
      content,
    });
  }
  return docs;
}

export interface RegeneratedPack {
  written: WrittenPack;
  verification: PackVerification;
}

/** Writes the next pack version from the index and verifies it against the sources. */
export async function regeneratePack(
  index: KnowledgeIndex,
  paths: KnowledgePaths & { knowledgePackDir: string },
  now: Date,
  extra: Record<string, unknown> = {},
): Promise<RegeneratedPack> {
  // Both folders are checked when used: a docs or packs folder swapped for a link would carry
  // outside text into the pack, or the pack outside.
  assertConfiguredPath(paths.docsPath, 'docs folder', paths);
  assertConfiguredPath(paths.knowledgePackDir, 'knowledge packs folder', paths);
  const docs = await packDocsFrom(index, paths);
  const written = await writePack(paths.knowledgePackDir, {
    generatedAt: now.toISOString(),
    indexerVersion: INDEXER_VERSION,
    docs,
    extra: { indexGeneration: index.generation, commit: index.commit, docCount: docs.length, ...extra },
  });
  const verification = await verifyPack(written, async (doc) => readDoc(paths.docsPath, String(doc.docPath ?? doc.path)));
  return { written, verification };
}

export interface PackDrift {
  added: string[];
  modified: string[];
  removed: string[];
}

/** What the latest pack lacks compared with the index (doc paths relative to docsPath). */
export function packDrift(pack: KnowledgePack | null, docs: IndexedDoc[]): PackDrift {
  const packed = new Map((pack?.docs ?? []).map((d) => [String(d.docPath ?? d.path), d.hash]));
  const drift: PackDrift = { added: [], modified: [], removed: [] };
  for (const doc of docs) {
    const hash = packed.get(doc.path);
    if (hash === undefined) drift.added.push(doc.path);
    else if (hash !== doc.hash) drift.modified.push(doc.path);
  }
  const indexed = new Set(docs.map((d) => d.path));
  for (const path of packed.keys()) if (!indexed.has(path)) drift.removed.push(path);
  return drift;
}
