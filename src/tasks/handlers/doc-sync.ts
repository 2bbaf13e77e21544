import { createHash } from 'node:crypto';
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TaskHandler } from '../handler-types.js';
import { writeJsonAtomic } from './atomic-write.js';
import { readDocIndex, writeDocIndex, type DocIndex } from './doc-index.js';
import { outlineDoc, type DocOutline } from './doc-outline.js';
import { walkDocs } from './docs-walk.js';

interface IndexedDoc extends DocOutline {
  path: string;
  hash: string;
  bytes: number;
}

export interface DocChanges {
  added: string[];
  modified: string[];
  removed: string[];
}

/** Differences between the previous index and the current hashes. */
export function diffIndex(previous: Record<string, string>, current: Record<string, string>): DocChanges {
  const changes: DocChanges = { added: [], modified: [], removed: [] };
  for (const [path, hash] of Object.entries(current)) {
    if (!(path in previous)) changes.added.push(path);
    else if (previous[path] !== hash) changes.modified.push(path);
  }
  for (const path of Object.keys(previous)) if (!(path in current)) changes.removed.push(path);
  return changes;
}

async function fileExists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** File-name-safe stamp that still sorts in time order: 2024-05-01T10-00-00-000Z. */
function stamp(date: Date): string {
  return date.toISOString().replace(/[:.]/g, '-');
}

/**
 * doc-sync: hashes every doc under config.docsPath, compares with the index of the previous pass
 * (logsDir/doc-index.json) and, when anything changed (or the last pack is gone), writes a new
 * knowledge pack to config.knowledgePackDir. An absent docs folder is a normal, empty result.
 */
export const docSync: TaskHandler = async (state, config, input) => {
  const walk = await walkDocs(config.docsPath);
  if (!walk.exists) {
    return {
      status: 'completed',
      result: {
        filesIndexed: 0,
        changeDetected: false,
        knowledgePackGenerated: false,
        note: `docsPath ${config.docsPath} does not exist; nothing to index`,
      },
    };
  }

  const docs: IndexedDoc[] = [];
  for (const file of walk.files) {
    const content = await readFile(file.absolutePath, 'utf8');
    const hash = createHash('sha256').update(content).digest('hex');
    docs.push({ path: file.path, hash, bytes: file.size, ...outlineDoc(file.path, content) });
  }
  const hashes = Object.fromEntries(docs.map((d) => [d.path, d.hash]));

  const previous = await readDocIndex(config);
  const changes = diffIndex(previous?.docsPath === config.docsPath ? previous.files : {}, hashes);
  const changeDetected =
    previous === null
      ? docs.length > 0
      : previous.docsPath !== config.docsPath ||
        changes.added.length + changes.modified.length + changes.removed.length > 0;
  // An unchanged doc set still gets a pack when the last one was deleted: consumers need one.
  const packMissing =
    docs.length > 0 && (previous?.knowledgePackPath == null || !(await fileExists(previous.knowledgePackPath)));

  const now = input.clock.now();
  let knowledgePackPath: string | null = previous?.knowledgePackPath ?? null;
  const generate = docs.length > 0 && (changeDetected || packMissing);
  if (generate) {
    const runTag = input.runId.replace(/[^A-Za-z0-9-]/g, '').slice(0, 16);
    knowledgePackPath = join(config.knowledgePackDir, `knowledge-pack-${stamp(now)}${runTag ? `-${runTag}` : ''}.json`);
    await writeJsonAtomic(knowledgePackPath, {
      schemaVersion: 1,
      source: 'doc-sync',
      generatedAt: now.toISOString(),
      runId: input.runId,
      docsPath: config.docsPath,
      docCount: docs.length,
      totalWords: docs.reduce((sum, d) => sum + d.wordCount, 0),
      changes,
      docs,
    });
  }

  const index: DocIndex = {
    version: 1,
    generatedAt: now.toISOString(),
    docsPath: config.docsPath,
    files: hashes,
    knowledgePackPath: docs.length > 0 ? knowledgePackPath : null,
  };
  // An unchanged doc set leaves the index as it is: rewriting it would cost an fsync per run.
  const indexUnchanged = previous !== null && !changeDetected && !generate && previous.knowledgePackPath === index.knowledgePackPath;
  if (!indexUnchanged) await writeDocIndex(config, index);

  const paths = docs.map((d) => d.path);
  return {
    status: 'completed',
    result: {
      filesIndexed: docs.length,
      changeDetected,
      knowledgePackGenerated: generate,
      ...(generate && knowledgePackPath ? { knowledgePackPath } : {}),
      added: changes.added.length,
      modified: changes.modified.length,
      removed: changes.removed.length,
      oversizedSkipped: walk.oversized,
      truncated: walk.truncated,
    },
    // Only a changed doc list is written back; an unchanged one would rewrite the state for nothing.
    ...(sameList(state.docsIndexed, paths) ? {} : { stateUpdate: (s) => ({ ...s, docsIndexed: paths }) }),
  };
};

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}
