/**
 * The admin export of the knowledge index: every indexed doc with its path (relative to docsPath
 * and to the workspace), its index facts and its current content, read as the index reads it
 * (inside the docs folder, no link followed), at most 32 MiB of content (then `truncated`), and
 * the whole body scrubbed of configured secrets.
 */

import { readScopedFile } from '../worker-sdk/scoped-file.js';
import type { Clock } from '../clock.js';
import type { KnowledgePaths } from './described-files.js';
import { DOC_WALK_LIMITS } from './docs-walk.js';
import type { LoadedIndex } from './loaded-index.js';
import { workspacePathOf } from './pack-builder.js';
import type { Scrub } from './secret-scrub.js';

const MAX_EXPORT_BYTES = 32 * 1024 * 1024;

export function knowledgeExport(deps: { config: KnowledgePaths; clock: Clock; loaded: LoadedIndex; scrub: Scrub }) {
  const { config, clock, loaded, scrub } = deps;

  /** Admin export: every indexed doc with its path and current content, configured secrets removed. */
  return async function exportDocs() {
    const idx = await loaded.current();
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
  };
}
